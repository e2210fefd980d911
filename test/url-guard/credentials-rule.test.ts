import { credentialsRule } from '../../core/url-guard/credentials-rule';
import { organization } from './fixtures';

const check = (url: string) => credentialsRule.check(new URL(url), { organization });
const refused = {
  blocked: true,
  reason: 'credentials before the host disguise the real destination',
};

describe('credentials rule', () => {
  it.each([
    'http://paypal.com@evil.example/',
    'https://user:pass@evil.example/login',
    'https://:secret@evil.example/',
    'https://www.bank.example%2Flogin@evil.example/',
  ])('refuses %s', async (url) => {
    expect(await check(url)).toEqual(refused);
  });

  it('names the rule without echoing the credentials', async () => {
    const verdict = await check('https://alice:hunter2@evil.example/');
    expect(JSON.stringify(verdict)).not.toContain('hunter2');
  });

  it.each([
    'https://example.com/',
    'https://example.com/path/with@sign',
    'https://example.com/?next=a@b.example',
    'https://example.com/#user@host',
  ])('lets %s through (an @ after the host is no disguise)', async (url) => {
    expect(await check(url)).toEqual({ blocked: false });
  });
});
