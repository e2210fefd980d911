import { createShortenerRule } from '../../core/url-guard/shortener-rule';
import { organization } from './fixtures';

const rule = createShortenerRule(['bit.ly', 'TinyURL.com', '*.t.co', 'b\u00fccher.example.']);
const check = (url: string) => rule.check(new URL(url), { organization });

describe('other-shortener rule (BLOCKED_SHORTENER_DOMAINS)', () => {
  it.each([
    'https://bit.ly/abc',
    'http://BIT.LY:8080/abc',
    'https://bit.ly./abc', // the trailing dot names the same host
    'https://www.tinyurl.com/x',
    'https://t.co/x',
    'https://deep.sub.t.co/x',
    'https://xn--bcher-kva.example/x', // configured in Unicode, matched in punycode
  ])('refuses %s', async (url) => {
    expect(await check(url)).toEqual({
      blocked: true,
      reason: 'the host is another link shortener, which would hide the real destination',
    });
  });

  it.each(['https://notbit.ly/', 'https://bit.ly.example.com/', 'https://example.com/bit.ly'])(
    'lets %s through',
    async (url) => {
      expect(await check(url)).toEqual({ blocked: false });
    },
  );

  it('rejects a configured entry that is not a domain', () => {
    expect(() => createShortenerRule(['https://bit.ly/'])).toThrow(/not a domain/);
  });
});
