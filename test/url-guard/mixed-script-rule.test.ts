import { judgeLabel } from '../../core/url-guard/label-scripts';
import { mixedScriptRule } from '../../core/url-guard/mixed-script-rule';
import { organization } from './fixtures';

const check = (url: string) => mixedScriptRule.check(new URL(url), { organization });

describe('mixed-script rule (what browsers show as punycode)', () => {
  it.each([
    ['http://p\u0430ypal.com/', 'Latin and Cyrillic'], // Cyrillic а among Latin letters
    ['https://xn--pypal-4ve.com/login', 'Latin and Cyrillic'], // the same host, given as punycode
    ['http://\u03b1pple.com/', 'Greek and Latin'],
    ['http://\u0430\u0431\u0432\u03b1\u03b2.example/', 'Cyrillic and Greek'],
    ['http://shop.\u4e2d\u6587\u0430.example/', 'Han and Cyrillic'],
  ])('refuses %s: mixes %s', async (url, scripts) => {
    expect(await check(url)).toEqual({
      blocked: true,
      reason: `the host mixes ${scripts} letters`,
    });
  });

  it.each([
    'https://example.com/',
    'https://m\u00fcnchen.de/', // Latin with a diacritic
    'https://xn--mnchen-3ya.de/',
    'https://\u0430\u0431\u0432.\u0440\u0444/', // all Cyrillic
    'https://\u30c9\u30e1\u30a4\u30f3\u540d\u4f8b.jp/', // Katakana + Han (Japanese)
    'https://abc\u65e5\u672c\u3042.jp/', // Latin + Han + Hiragana
    'https://abc\u3105\u4e2d\u6587.tw/', // Latin + Bopomofo + Han
    'https://\ud55c\uad6dabc.kr/', // Hangul + Latin
    'https://\u0645\u062b\u0627\u0644.example/', // Arabic
    'https://my-site-2024.example/', // digits and hyphens belong to every script
    'https://127.0.0.1:8080/',
    'https://[::1]/',
  ])('lets %s through', async (url) => {
    expect(await check(url)).toEqual({ blocked: false });
  });

  it('refuses letters of a script browsers do not show in host names', async () => {
    // Gothic letters: not a script recommended for identifiers.
    expect(await check('https://\u{10330}\u{10331}.example/')).toEqual({
      blocked: true,
      reason: 'the host uses letters of a script that browsers show as punycode',
    });
  });

  it('judges each label on its own: Latin and Cyrillic labels side by side are fine', () => {
    expect(judgeLabel('\u043f\u0440\u0438\u043c\u0435\u0440')).toEqual({ safe: true });
    expect(judgeLabel('example')).toEqual({ safe: true });
    expect(judgeLabel('\u30a2\u30a4\ud55c\uad6d')).toEqual({
      safe: false,
      kind: 'mixed',
      scripts: ['Katakana', 'Hangul'],
    });
  });
});
