import { createHash } from 'node:crypto';
import { requestFingerprint } from '../../../core/links/create-fingerprint';

/**
 * The fingerprint is stored with every idempotency record: a change to how it is computed would
 * make every stored key answer 25 (reused for another request) to its own retries.
 */
describe('requestFingerprint: the stored form', () => {
  const organizationKey = 'slorg_fingerprint00000000000000000000000000';
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

  it('is SHA-256 (hex) of the JSON of the normalised fields, a known digest', () => {
    const body = {
      organization_key: organizationKey,
      url_group_id: 1,
      url: '  https://a.example/é  ',
    };
    const meaning = [sha256(organizationKey), '1', 'https://a.example/é', null, 301];
    expect(requestFingerprint(body)).toBe(sha256(JSON.stringify(meaning)));
    expect(requestFingerprint(body)).toBe(
      'd7c14963bf1564dcc632e2e4e8cf62beea82df528b9f1df791f616fefa992c49',
    );
  });

  it('is the same for the same meaning: key order, absent, null and "" alike', () => {
    const reordered = {
      redirect_type: null,
      alias: '',
      url: 'https://a.example/é',
      url_group_id: '1',
      organization_key: organizationKey,
    };
    expect(requestFingerprint(reordered)).toBe(
      'd7c14963bf1564dcc632e2e4e8cf62beea82df528b9f1df791f616fefa992c49',
    );
  });
});
