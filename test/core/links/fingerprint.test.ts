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

describe('requestFingerprint: expires_at and max_visits', () => {
  const organizationKey = 'slorg_fingerprint00000000000000000000000000';
  const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
  /** The digest of the first test: a body without the limits, as stored before they existed. */
  const WITHOUT_LIMITS = 'd7c14963bf1564dcc632e2e4e8cf62beea82df528b9f1df791f616fefa992c49';
  const base = { organization_key: organizationKey, url_group_id: 1, url: 'https://a.example/é' };
  const of = (fields: Record<string, unknown>) => requestFingerprint({ ...base, ...fields });

  it('leaves a body without them, or with them null, as it was', () => {
    expect(of({})).toBe(WITHOUT_LIMITS);
    expect(of({ expires_at: null, max_visits: null })).toBe(WITHOUT_LIMITS);
    expect(of({ expires_at: undefined, max_visits: null })).toBe(WITHOUT_LIMITS);
  });

  it('appends the instant (UTC, to the millisecond) and the limit, a known digest', () => {
    const fields = { expires_at: '2030-01-01T02:00:00+02:00', max_visits: 5 };
    const meaning = [sha256(organizationKey), '1', 'https://a.example/é', null, 301];
    expect(of(fields)).toBe(sha256(JSON.stringify([...meaning, '2030-01-01T00:00:00.000Z', 5])));
    expect(of({ max_visits: 5 })).toBe(sha256(JSON.stringify([...meaning, null, 5])));
  });

  it('tells a request with a limit from one without: they never replay each other', () => {
    const withExpiry = of({ expires_at: '2030-01-01T00:00:00Z' });
    const withLimit = of({ max_visits: 5 });
    expect(new Set([WITHOUT_LIMITS, withExpiry, withLimit]).size).toBe(3);
  });

  it('reads the same instant in any offset, case or extra digits as the same request', () => {
    const same = [
      '2030-01-01T00:00:00Z',
      '2030-01-01T00:00:00.000Z',
      '2030-01-01T00:00:00.0004Z',
      '2030-01-01t00:00:00z',
      '2030-01-01T05:30:00+05:30',
      '2029-12-31T19:00:00-05:00',
    ].map((at) => of({ expires_at: at }));
    expect(new Set(same).size).toBe(1);
  });

  it('tells apart other instants, other limits and values no stage would read alike', () => {
    const digests = [
      of({ expires_at: '2030-01-01T00:00:00Z' }),
      of({ expires_at: '2030-01-01T00:00:00.001Z' }),
      of({ expires_at: '2030-01-01T00:00:00' }),
      of({ expires_at: '' }),
      of({ expires_at: 1_893_456_000_000 }),
      of({ max_visits: 5 }),
      of({ max_visits: 6 }),
      of({ max_visits: '5' }),
      of({ max_visits: 0 }),
      of({ max_visits: '' }),
    ];
    expect(new Set(digests).size).toBe(digests.length);
  });
});
