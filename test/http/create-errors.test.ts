import * as zlib from 'node:zlib';
import {
  BackendUnavailableError,
  createCore,
  ERROR_CATALOGUE,
  ErrorCode,
  type UrlGuard,
} from '../../core';
import { CONTENT_CODINGS } from '../../gateway-http/body-decoding';
import type { CoreFixture } from '../support/core-fixture';
import { failingStore } from '../support/failures';
import {
  expectError,
  expectNoRateLimitHeaders,
  expectRateLimitHeaders,
} from '../support/http-assertions';
import { startHttp, startHttpOnTestCore, type HttpFixture } from '../support/http-fixture';

/** Every row of the error table (gateway-http/README.md) that HTTP can reach, with exact answers. */

const URL_INVALID = ERROR_CATALOGUE.URL_INVALID.message;
const ALIAS_INVALID = ERROR_CATALOGUE.ALIAS_INVALID.message;
const REDIRECT_INVALID = ERROR_CATALOGUE.REDIRECT_TYPE_INVALID.message;

let f: CoreFixture;
let http: HttpFixture;

beforeEach(async () => ({ f, http } = await startHttpOnTestCore()));
afterEach(() => http.close());

const post = (headers: Record<string, string>, body?: string | Buffer) =>
  http.request({
    method: 'POST',
    path: '/api/create',
    headers,
    ...(body !== undefined && { body }),
  });

describe('405, code 2: other methods on /api/create', () => {
  it.each(['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE'])(
    '%s answers 405 with Allow: POST, before any token check',
    async (method) => {
      const answer = await http.request({ method, path: '/api/create' });
      expectError(answer, 405, 'METHOD_NOT_ALLOWED', ['Method not allowed; use POST.']);
      expect(answer.headers.allow).toBe('POST');
      expectNoRateLimitHeaders(answer.headers);
    },
  );

  it('HEAD answers 405 with Allow: POST and no body', async () => {
    const answer = await http.request({ method: 'HEAD', path: '/api/create' });
    expect(answer.status).toBe(405);
    expect(answer.headers.allow).toBe('POST');
    expect(answer.text).toBe('');
  });

  it('answers 405 even with a valid token and body, and stores nothing', async () => {
    const answer = await http.request({
      method: 'PUT',
      path: '/api/create',
      headers: { authorization: `Bearer ${f.token}` },
      json: f.body(),
    });
    expect(answer.status).toBe(405);
    expect(f.linkCount()).toBe(0);
  });
});

describe('401: the token (3, 10, 11)', () => {
  it('code 3 without an Authorization header, and no rate-limit headers', async () => {
    const answer = await http.create(f.body());
    expectError(answer, 401, 'TOKEN_MISSING', ['The Authorization header is missing.']);
    expectNoRateLimitHeaders(answer.headers);
  });

  it.each([['Basic x'], ['Bearer '], ['Bearer'], ['bearer a b'], ['slpat_x'], ['']])(
    'code 10 for Authorization: %j',
    async (authorization) => {
      const answer = await http.create(f.body(), undefined, { authorization });
      expectError(answer, 401, 'TOKEN_MALFORMED', [
        'The Authorization header must be "Bearer <token>".',
      ]);
      expectNoRateLimitHeaders(answer.headers);
    },
  );

  it('code 11 for an unknown token', async () => {
    const answer = await http.create(f.body(), 'slpat_unknown');
    expectError(answer, 401, 'TOKEN_UNKNOWN', ['The access token is unknown or revoked.']);
    expectNoRateLimitHeaders(answer.headers);
  });
});

describe('401: the organization (12, 13, 17)', () => {
  it('code 12 for an unknown organization key, with rate-limit headers', async () => {
    const answer = await http.create(f.body({ organization_key: 'slorg_nope' }), f.token);
    expectError(answer, 401, 'ORGANIZATION_KEY_INVALID', ['The organization key is invalid.']);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
  });

  it('code 12 for an organization key of another type', async () => {
    expectError(
      await http.create(f.body({ organization_key: 7 }), f.token),
      401,
      'ORGANIZATION_KEY_INVALID',
      ['The organization key is invalid.'],
    );
  });

  it('code 13 for an inactive organization', async () => {
    const answer = await http.create(
      f.body({ organization_key: f.inactiveOrganizationKey }),
      f.token,
    );
    expectError(answer, 401, 'ORGANIZATION_INACTIVE', ['The organization is inactive.']);
  });

  it('code 17 when the token user is not a member', async () => {
    const answer = await http.create(f.body(), f.outsiderToken);
    expectError(answer, 401, 'NOT_A_MEMBER', [
      'The access token does not belong to a member of this organization.',
    ]);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
  });
});

describe('422: the body fields (4, 5, 6, 7, 8, 9, 14, 15, 16, 18)', () => {
  it('code 4 without organization_key', async () => {
    const answer = await http.create({ url_group_id: '1', url: 'https://e.com' }, f.token);
    expectError(answer, 422, 'ORGANIZATION_KEY_MISSING', ['organization_key is required.']);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
  });

  it('code 5 with url_group_id null', async () => {
    expectError(
      await http.create(f.body({ url_group_id: null }), f.token),
      422,
      'URL_GROUP_ID_MISSING',
      ['url_group_id is required.'],
    );
  });

  it('code 6 with a blank url', async () => {
    expectError(await http.create(f.body({ url: '  ' }), f.token), 422, 'URL_MISSING', [
      'url is required.',
    ]);
  });

  it('code 7 with an ftp url', async () => {
    expectError(await http.create(f.body({ url: 'ftp://e.com/' }), f.token), 422, 'URL_INVALID', [
      URL_INVALID,
    ]);
  });

  it('code 8 with an alias holding a space', async () => {
    expectError(await http.create(f.body({ alias: 'a b' }), f.token), 422, 'ALIAS_INVALID', [
      ALIAS_INVALID,
    ]);
  });

  it('code 9 with a 65-character alias', async () => {
    expectError(
      await http.create(f.body({ alias: 'a'.repeat(65) }), f.token),
      422,
      'ALIAS_TOO_LONG',
      ['alias must be at most 64 characters.'],
    );
  });

  it('code 14 with an unknown group', async () => {
    expectError(
      await http.create(f.body({ url_group_id: 99 }), f.token),
      422,
      'URL_GROUP_NOT_FOUND',
      ['No URL group with this url_group_id exists in the organization.'],
    );
  });

  it('code 15 with a taken alias, and with a reserved one', async () => {
    expect((await http.create(f.body({ alias: 'mine' }), f.token)).status).toBe(200);
    const taken = 'This alias is already taken on this link domain.';
    expectError(await http.create(f.body({ alias: 'mine' }), f.token), 422, 'ALIAS_TAKEN', [taken]);
    expectError(await http.create(f.body({ alias: 'Healthz' }), f.token), 422, 'ALIAS_TAKEN', [
      taken,
    ]);
  });

  it('code 16 with redirect_type "302"', async () => {
    expectError(
      await http.create(f.body({ redirect_type: '302' }), f.token),
      422,
      'REDIRECT_TYPE_INVALID',
      [REDIRECT_INVALID],
    );
  });

  it('code 7 with every failing field reported in field order', async () => {
    const answer = await http.create(
      f.body({ redirect_type: 300, alias: 'no!', url: 'example.com' }),
      f.token,
    );
    expectError(answer, 422, 'URL_INVALID', [URL_INVALID, ALIAS_INVALID, REDIRECT_INVALID]);
  });

  it('code 18 when the URL guard blocks the URL', async () => {
    const guard: UrlGuard = {
      check: () => Promise.resolve({ blocked: true, reason: 'listed as phishing' }),
    };
    const { f: guarded, http: server } = await startHttpOnTestCore({ urlGuard: guard });
    try {
      const answer = await server.create(guarded.body(), guarded.token);
      expectError(answer, 422, 'URL_BLOCKED', ['The URL was refused: listed as phishing']);
      expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
      expect(guarded.linkCount()).toBe(0);
    } finally {
      await server.close();
    }
  });
});

describe('429, code 19: the rate limit', () => {
  it('refuses the 61st request with Retry-After and the rate-limit headers', async () => {
    for (let i = 1; i <= 60; i += 1) {
      const answer = await http.create(f.body(), f.token);
      expect(answer.status).toBe(200);
      expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 60 - i });
    }
    const answer = await http.create(f.body(), f.token);
    expect(answer.status).toBe(429);
    const body = answer.json() as { data: null; code: number; errors: string[] };
    expect(answer.text).toBe(
      JSON.stringify({ data: null, code: ErrorCode.RATE_LIMITED, errors: body.errors }),
    );
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0]).toMatch(
      /^Rate limit of 60 requests per minute exceeded; retry in \d+ s\.$/,
    );
    const retryAfter = Number(answer.headers['retry-after']);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 0 });
    expect(f.linkCount()).toBe(60);
  });

  it('refuses unknown tokens from an address after 30 failed checks with 429, Retry-After and no rate-limit headers', async () => {
    for (let i = 0; i < 30; i += 1) {
      expect((await http.create(f.body(), 'slpat_guess')).status).toBe(401);
    }
    const message = ['Too many failed authentication attempts; slow down.'];
    const blocked = await http.create(f.body(), 'slpat_guess');
    expectError(blocked, 429, 'RATE_LIMITED', message);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expectNoRateLimitHeaders(blocked.headers);
    // Past the budget the right token is still served from this address.
    const withToken = await http.create(f.body(), f.token);
    expect(withToken.status).toBe(200);
    expect(f.linkCount()).toBe(1);
    expectError(await http.create(f.body(), 'slpat_guess'), 429, 'RATE_LIMITED', message);
  });
});

describe('400, 413, 415: bodies that cannot be decoded (20, 21, 22)', () => {
  const auth = () => ({ authorization: `Bearer ${f.token}` });
  const json = { 'content-type': 'application/json' };
  const NOT_JSON = 'The request body is not valid JSON.';
  const NOT_OBJECT = 'The request body must be a JSON object.';

  it.each([
    ['broken JSON', '{"url": ', NOT_JSON],
    ['a trailing comma', '{"a":1,}', NOT_JSON],
    ['a JSON array', '[]', NOT_OBJECT],
    ['a JSON string', '"https://example.com"', NOT_OBJECT],
    ['a JSON number', '42', NOT_OBJECT],
    ['JSON null', 'null', NOT_OBJECT],
    ['an empty body', '', NOT_JSON],
    ['a blank body', '  \n', NOT_JSON],
  ])('code 20 for %s', async (_label, body, message) => {
    const answer = await post({ ...auth(), ...json }, body);
    expectError(answer, 400, 'BODY_INVALID', [message]);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
    expect(f.linkCount()).toBe(0);
  });

  it('code 20 for a POST that sends no body at all', async () => {
    const answer = await post({ ...auth(), 'content-length': '0' });
    expectError(answer, 400, 'BODY_INVALID', [NOT_JSON]);
  });

  it.each([
    ['text/plain', JSON.stringify({ url: 'https://e.com' })],
    ['application/x-www-form-urlencoded', 'url=https%3A%2F%2Fe.com'],
    ['multipart/form-data; boundary=x', '--x--'],
    ['application/jsonp', '{}'],
    ['application/json-seq', '{}'],
  ])('code 21 for Content-Type %s', async (contentType, body) => {
    const answer = await post({ ...auth(), 'content-type': contentType }, body);
    expectError(answer, 415, 'CONTENT_TYPE_UNSUPPORTED', [
      'Content-Type must be application/json.',
    ]);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
  });

  it('code 21 for a JSON body in a charset other than UTF-8, 16 or 32, naming those', async () => {
    const answer = await post(
      { ...auth(), 'content-type': 'application/json; charset=latin1' },
      '{}',
    );
    expectError(answer, 415, 'CONTENT_TYPE_UNSUPPORTED', [
      'The request body must be JSON in UTF-8 (or in UTF-16 or UTF-32, named by the charset parameter).',
    ]);
  });

  it.each(['utf-7', 'UTF-7', 'utf-7-imap', '"utf-7"'])(
    'code 21 for charset=%s, which body-parser alone would decode',
    async (charset) => {
      // "https://x" in UTF-7 is "+AGg-ttps://x": the bytes read differently as UTF-8.
      const body = JSON.stringify(f.body({ url: '+AGg-ttps://example.com/utf7' }));
      const before = f.linkCount();
      const answer = await post(
        { ...auth(), 'content-type': `application/json; charset=${charset}` },
        body,
      );
      expectError(answer, 415, 'CONTENT_TYPE_UNSUPPORTED', [
        'The request body must be JSON in UTF-8 (or in UTF-16 or UTF-32, named by the charset parameter).',
      ]);
      expect(f.linkCount()).toBe(before);
    },
  );

  it.each([
    ['utf-16le', 'utf16le', []],
    ['UTF-16', 'utf16le', [0xff, 0xfe]],
  ] as const)('accepts a body in charset=%s', async (charset, encoding, bom) => {
    const text = JSON.stringify(f.body({ url: 'https://example.com/utf16' }));
    const answer = await post(
      { ...auth(), 'content-type': `application/json; charset=${charset}` },
      Buffer.concat([Buffer.from(bom), Buffer.from(text, encoding)]),
    );
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ data: { url: 'https://example.com/utf16' } });
  });

  it.each([
    ['utf-32le', (text: string) => encodeWide(text, 'utf-32le', 'LE')],
    ['utf-32be', (text: string) => encodeWide(text, 'utf-32be', 'BE')],
    ['utf-32', (text: string) => encodeWide('\uFEFF' + text, 'utf-32', 'BE')],
    ['utf-32', (text: string) => encodeWide(text, 'utf-32', 'LE')],
    ['utf-16', (text: string) => encodeWide(text, 'utf-16', 'BE')],
    ['utf-16', (text: string) => encodeWide('\uFEFF' + text, 'utf-16', 'BE')],
    ['utf-8', (text: string) => Buffer.from('\uFEFF' + text)],
  ] as const)('accepts a body in charset=%s (%#)', async (charset, encode) => {
    const url = 'https://example.com/wide/\u{1F600}';
    const answer = await post(
      { ...auth(), 'content-type': `application/json; charset=${charset}` },
      encode(JSON.stringify(f.body({ url }))),
    );
    expect(answer.status).toBe(200);
    expect(answer.json()).toMatchObject({ data: { url } });
  });

  describe('code 20 for bytes that are not well-formed in the charset (never U+FFFD)', () => {
    const utf8 = (text: string) => Buffer.from(text);
    const utf16le = (text: string) => Buffer.from(text, 'utf16le');
    it.each([
      [
        'invalid UTF-8',
        'utf-8',
        (prefix: string) => Buffer.concat([utf8(prefix), Buffer.from([0xff, 0xfe]), utf8('"}')]),
        'UTF-8',
      ],
      [
        'a UTF-8 surrogate (CESU-8)',
        'utf-8',
        (prefix: string) =>
          Buffer.concat([utf8(prefix), Buffer.from([0xed, 0xa0, 0x80]), utf8('"}')]),
        'UTF-8',
      ],
      [
        'UTF-16LE with one stray byte',
        'utf-16le',
        (prefix: string) => Buffer.concat([utf16le(prefix + '"}'), Buffer.from([0x41])]),
        'UTF-16LE',
      ],
      [
        'UTF-16LE with a lone surrogate',
        'utf-16le',
        (prefix: string) =>
          Buffer.concat([utf16le(prefix), Buffer.from([0x00, 0xd8]), utf16le('"}')]),
        'UTF-16LE',
      ],
      [
        'UTF-32LE with a code point past U+10FFFF',
        'utf-32le',
        (prefix: string) =>
          Buffer.concat([
            encodeWide(prefix, 'utf-32le', 'LE'),
            Buffer.from([0, 0, 0x11, 0]),
            encodeWide('"}', 'utf-32le', 'LE'),
          ]),
        'UTF-32LE',
      ],
    ] as const)('%s', async (_label, charset, encode, name) => {
      const prefix = JSON.stringify(f.body({ url: 'https://example.com/' })).slice(0, -2);
      const answer = await post(
        { ...auth(), 'content-type': `application/json; charset=${charset}` },
        encode(prefix),
      );
      expectError(answer, 400, 'BODY_INVALID', [`The request body is not valid ${name} text.`]);
      expect(f.linkCount()).toBe(0);
    });

    it('also when no charset is declared (UTF-8)', async () => {
      const prefix = JSON.stringify(f.body({ url: 'https://example.com/' })).slice(0, -2);
      const body = Buffer.concat([utf8(prefix), Buffer.from([0xc3]), utf8('"}')]);
      expectError(await post({ ...auth(), ...json }, body), 400, 'BODY_INVALID', [
        'The request body is not valid UTF-8 text.',
      ]);
      expectError(await post(auth(), body), 400, 'BODY_INVALID', [
        'The request body is not valid UTF-8 text.',
      ]);
      expect(f.linkCount()).toBe(0);
    });
  });

  it('code 22 for a body over 16 KiB, and accepts one just under it', async () => {
    const big = JSON.stringify(f.body({ padding: 'x'.repeat(16 * 1024) }));
    expect(Buffer.byteLength(big)).toBeGreaterThan(16 * 1024);
    const answer = await post({ ...auth(), ...json }, big);
    expectError(answer, 413, 'BODY_TOO_LARGE', ['The request body is larger than 16 KiB.']);
    expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });

    const base = JSON.stringify(f.body({ padding: '' }));
    const fits = JSON.stringify(
      f.body({ padding: 'x'.repeat(16 * 1024 - Buffer.byteLength(base)) }),
    );
    expect(Buffer.byteLength(fits)).toBe(16 * 1024);
    expect((await post({ ...auth(), ...json }, fits)).status).toBe(200);
  });

  it('code 22 for a 1 MiB body, announced or chunked, and the connection stays usable', async () => {
    const huge = JSON.stringify(f.body({ padding: 'x'.repeat(1024 * 1024) }));
    const message = ['The request body is larger than 16 KiB.'];
    expectError(await post({ ...auth(), ...json }, huge), 413, 'BODY_TOO_LARGE', message);
    const chunked = await post({ ...auth(), ...json, 'transfer-encoding': 'chunked' }, huge);
    expectError(chunked, 413, 'BODY_TOO_LARGE', message);
    expect((await http.create(f.body(), f.token)).status).toBe(200);
  });

  describe('Content-Encoding', () => {
    const compress: Record<string, (bytes: Buffer) => Buffer> = {
      gzip: (bytes) => zlib.gzipSync(bytes),
      deflate: (bytes) => zlib.deflateSync(bytes),
      br: (bytes) => zlib.brotliCompressSync(bytes),
      zstd: (bytes) =>
        (zlib as unknown as Record<string, (b: Buffer) => Buffer>).zstdCompressSync!(bytes),
    };
    const supported = `send the body unencoded, or in one of ${CONTENT_CODINGS.join(', ')}.`;

    it('decodes every coding it names, and identity', async () => {
      expect(CONTENT_CODINGS).toEqual(expect.arrayContaining(['gzip', 'deflate', 'br']));
      for (const coding of CONTENT_CODINGS) {
        const body = Buffer.from(JSON.stringify(f.body()));
        const answer = await post(
          { ...auth(), ...json, 'content-encoding': coding.toUpperCase() },
          compress[coding]!(body),
        );
        expect(answer.status).toBe(200);
      }
      const plain = JSON.stringify(f.body());
      expect(
        (await post({ ...auth(), ...json, 'content-encoding': 'identity' }, plain)).status,
      ).toBe(200);
    });

    it('code 21 for another coding, with a message that names it and what is supported', async () => {
      const body = JSON.stringify(f.body());
      const foo = await post({ ...auth(), ...json, 'content-encoding': 'Foo' }, body);
      expectError(foo, 415, 'CONTENT_TYPE_UNSUPPORTED', [
        `Content-Encoding "foo" is not supported; ${supported}`,
      ]);
      // A list of codings, or a value not worth repeating, is not quoted back.
      for (const coding of ['gzip, br', 'x'.repeat(40), 'a"b']) {
        const answer = await post({ ...auth(), ...json, 'content-encoding': coding }, body);
        expectError(answer, 415, 'CONTENT_TYPE_UNSUPPORTED', [
          `Content-Encoding is not supported; ${supported}`,
        ]);
      }
      expect(f.linkCount()).toBe(0);
    });

    it('applies the 16 KiB limit to the decoded body', async () => {
      const big = Buffer.from(JSON.stringify(f.body({ padding: ' '.repeat(16 * 1024) })));
      const small = zlib.gzipSync(big);
      expect(small.length).toBeLessThan(1024);
      const answer = await post({ ...auth(), ...json, 'content-encoding': 'gzip' }, small);
      expectError(answer, 413, 'BODY_TOO_LARGE', ['The request body is larger than 16 KiB.']);

      const base = Buffer.byteLength(JSON.stringify(f.body({ padding: '' })));
      const fits = Buffer.from(JSON.stringify(f.body({ padding: ' '.repeat(16 * 1024 - base) })));
      expect(fits.length).toBe(16 * 1024);
      const accepted = await post(
        { ...auth(), ...json, 'content-encoding': 'gzip' },
        zlib.gzipSync(fits),
      );
      expect(accepted.status).toBe(200);
    });

    it('code 20 for a body that does not decompress as its Content-Encoding says', async () => {
      const body = JSON.stringify(f.body());
      const message = ['The request body does not decompress as its Content-Encoding says.'];
      const notGzip = await post({ ...auth(), ...json, 'content-encoding': 'gzip' }, body);
      expectError(notGzip, 400, 'BODY_INVALID', message);
      const cut = zlib.gzipSync(Buffer.from(body)).subarray(0, 20);
      expectError(
        await post({ ...auth(), ...json, 'content-encoding': 'gzip' }, cut),
        400,
        'BODY_INVALID',
        message,
      );
      const notBrotli = await post({ ...auth(), ...json, 'content-encoding': 'br' }, body);
      expectError(notBrotli, 400, 'BODY_INVALID', message);
      expect(f.linkCount()).toBe(0);
    });
  });

  it('orders the body checks 21, 22, 20', async () => {
    const bigBroken = '{' + 'x'.repeat(20 * 1024);
    expect((await post({ ...auth(), 'content-type': 'text/plain' }, bigBroken)).status).toBe(415);
    expect((await post({ ...auth(), ...json }, bigBroken)).status).toBe(413);
  });

  it('checks the token before the body: no token and a broken body is 401, code 3', async () => {
    const answer = await post({ 'content-type': 'text/plain' }, '{');
    expectError(answer, 401, 'TOKEN_MISSING', ['The Authorization header is missing.']);
  });

  it('accepts Content-Type with a charset, in any case, an empty one, and no Content-Type at all', async () => {
    const body = JSON.stringify(f.body());
    const variants: Array<Record<string, string>> = [
      { 'content-type': 'application/json; charset=utf-8' },
      { 'content-type': 'Application/JSON;charset=UTF-8' },
      // "utf8": UTF-8's other name (a label of it in the WHATWG Encoding Standard, node's name).
      { 'content-type': 'application/json; charset=utf8' },
      { 'content-type': 'application/json; charset=' },
      {},
    ];
    for (const headers of variants) {
      const answer = await post({ ...auth(), ...headers }, body);
      expect([headers['content-type'], answer.status]).toEqual([headers['content-type'], 200]);
    }
    expect(f.linkCount()).toBe(5);
  });
});

describe('404, code 24: unknown paths under /api', () => {
  it.each([
    ['GET', '/api'],
    ['GET', '/api/'],
    ['POST', '/api/links'],
    ['GET', '/api/create/extra'],
    ['POST', '/api/create/'],
    ['POST', '/API/CREATE'],
    ['GET', '/Api/Create'],
    ['DELETE', '/api/v2/create'],
  ])('%s %s answers 404 code 24', async (method, path) => {
    const answer = await http.request({ method, path });
    expectError(answer, 404, 'NOT_FOUND', ['No such endpoint.']);
  });
});

describe('500 and 503: store failures (1, 23)', () => {
  it('code 1 when the store fails unexpectedly, without leaking the error', async () => {
    const store = failingStore(f.store, () => new Error('disk on fire at /var/lib/x'), {
      parts: ['links'],
    });
    const server = await startHttp(createCore({ ...f.core.deps, store }));
    try {
      const answer = await server.create(f.body(), f.token);
      expectError(answer, 500, 'INTERNAL', ['An unexpected error occurred.']);
      expect(answer.text).not.toContain('disk on fire');
      expectRateLimitHeaders(answer.headers, { limit: 60, remaining: 59 });
    } finally {
      await server.close();
    }
  });

  it.each([[['identities', 'links']], [['links']]] as const)(
    'code 23 with Retry-After: 5 when the store backend is unavailable (%j)',
    async (parts) => {
      const store = failingStore(f.store, () => new BackendUnavailableError('connection refused'), {
        parts: [...parts],
      });
      const server = await startHttp(createCore({ ...f.core.deps, store }));
      try {
        const answer = await server.create(f.body(), f.token);
        expectError(answer, 503, 'BACKEND_UNAVAILABLE', [
          'The service is temporarily unavailable.',
        ]);
        expect(answer.headers['retry-after']).toBe('5');
      } finally {
        await server.close();
      }
    },
  );
});

/** `text` in UTF-16 or UTF-32 (by the charset's name) in the byte order given. */
function encodeWide(text: string, charset: string, order: 'LE' | 'BE'): Buffer {
  const units = charset.startsWith('utf-32')
    ? Array.from(text, (char) => char.codePointAt(0) ?? 0)
    : Array.from({ length: text.length }, (_, index) => text.charCodeAt(index));
  const size = charset.startsWith('utf-32') ? 4 : 2;
  const bytes = Buffer.alloc(units.length * size);
  units.forEach((unit, index) => {
    if (size === 4) {
      if (order === 'LE') bytes.writeUInt32LE(unit, index * 4);
      else bytes.writeUInt32BE(unit, index * 4);
    } else if (order === 'LE') bytes.writeUInt16LE(unit, index * 2);
    else bytes.writeUInt16BE(unit, index * 2);
  });
  return bytes;
}
