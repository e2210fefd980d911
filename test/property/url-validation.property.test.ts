import fc from 'fast-check';
import { expectFailure, failureOf } from '../support/failures';
import { createWith } from './create-with';

/** Long-URL rules (gateway-http/README.md, body fields) checked over generated inputs, through links.create. */

const RUNS = { numRuns: 100 };
const httpUrl = fc.webUrl({
  validSchemes: ['http', 'https'],
  withQueryParameters: true,
  withFragments: true,
});
/** Whitespace that may surround a URL (trimmed away). */
const padding = fc.stringMatching(/^[ \t\n\r]{0,3}$/);
/** Characters that may never appear inside a URL. */
const forbiddenInside = fc.oneof(
  fc.constantFrom(' ', '\t', '\n', '\r', '\u000b', '\u000c', '\u00a0', '\u1680', '\u2003'),
  fc.constantFrom('\u2028', '\u2029', '\u202f', '\u3000', '\ufeff', '\u0085', '\u007f'),
  fc.integer({ min: 0, max: 0x1f }).map((code) => String.fromCharCode(code)),
  fc.integer({ min: 0x80, max: 0x9f }).map((code) => String.fromCharCode(code)),
  // Bidirectional formatting characters (RFC 3987, 4.1).
  fc.constantFrom('\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d'),
  fc.constantFrom('\u202e', '\u2066', '\u2067', '\u2068', '\u2069'),
);

describe('url validation (property-based)', () => {
  it('accepts generated http(s) URLs and returns them trimmed', async () => {
    await fc.assert(
      fc.asyncProperty(padding, httpUrl, padding, async (before, url, after) => {
        fc.pre(url.length <= 2048);
        const { f, outcome } = await createWith({ url: before + url + after });
        const link = await outcome;
        expect(link.url).toBe(url);
        expect(f.linkCount()).toBe(1);
      }),
      RUNS,
    );
  });

  it('refuses any string that does not start with http:// or https:// (7, or 6 when blank)', async () => {
    const anyText = fc.oneof(
      fc.string({ unit: 'binary', maxLength: 80 }),
      fc.string({ unit: 'grapheme-ascii', maxLength: 80 }),
      fc.stringMatching(/^\s{0,5}$/),
    );
    await fc.assert(
      fc.asyncProperty(anyText, async (text) => {
        fc.pre(!/^\s*https?:\/\//i.test(text));
        const { f, outcome } = await createWith({ url: text });
        const error = await failureOf(outcome);
        expect(error.reason).toBe(text.trim() === '' ? 'URL_MISSING' : 'URL_INVALID');
        expect(f.linkCount()).toBe(0);
      }),
      RUNS,
    );
  });

  it('refuses other schemes with 7', async () => {
    const otherScheme = fc
      .stringMatching(/^[a-z][a-z0-9+.-]{0,10}$/)
      .filter((scheme) => scheme !== 'http' && scheme !== 'https');
    await fc.assert(
      fc.asyncProperty(otherScheme, httpUrl, async (scheme, url) => {
        const { outcome } = await createWith({ url: url.replace(/^https?/, scheme) });
        expect((await failureOf(outcome)).reason).toBe('URL_INVALID');
      }),
      RUNS,
    );
  });

  it('refuses with 7 a valid URL with whitespace or a control character inserted inside', async () => {
    const withInsertion = fc.tuple(httpUrl, fc.nat(), forbiddenInside).map(([url, at, char]) => {
      const position = 1 + (at % (url.length - 1)); // strictly inside: never trimmed away
      return url.slice(0, position) + char + url.slice(position);
    });
    await fc.assert(
      fc.asyncProperty(withInsertion, async (url) => {
        const { f, outcome } = await createWith({ url });
        const error = await failureOf(outcome);
        expect(error.reason).toBe('URL_INVALID');
        expect(f.linkCount()).toBe(0);
      }),
      RUNS,
    );
  });

  it('refuses with 7 a URL over 2048 characters after trimming', async () => {
    const plainUrl = fc.webUrl({ validSchemes: ['http', 'https'] });
    await fc.assert(
      fc.asyncProperty(plainUrl, fc.integer({ min: 2049, max: 4000 }), async (url, length) => {
        const base = url.endsWith('/') ? url : `${url}/`;
        const long = base + 'a'.repeat(Math.max(1, length - base.length));
        const { outcome } = await createWith({ url: `  ${long}  ` });
        await expectFailure(outcome, 'URL_INVALID', ['url must be at most 2048 characters.']);
      }),
      { numRuns: 50 },
    );
  });
});
