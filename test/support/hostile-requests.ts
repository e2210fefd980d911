import { gzipSync } from 'node:zlib';
import fc from 'fast-check';
import type { OutgoingHttpHeaders } from 'node:http';

/** What a hostile create request is made of; turned into bytes by `toWire`. */
export interface HostileCreate {
  label: string;
  headers: OutgoingHttpHeaders;
  body: Buffer;
}

export interface Credentials {
  token: string;
  organizationKey: string;
  urlGroupId: string;
}

/** Keys that pollute a prototype when an object is merged carelessly. */
export const POLLUTION_KEYS = ['__proto__', 'constructor', 'prototype'] as const;

const nosqlOperator = fc.constantFrom<unknown>(
  { $gt: '' },
  { $ne: null },
  { $ne: 1 },
  { $regex: '.*' },
  { $where: 'sleep(1000) || true' },
  { $in: ['1', 1, null] },
  { $exists: true },
  { $expr: { $eq: [1, 1] } },
  [{ $gt: '' }],
  { $function: { body: 'return true', args: [], lang: 'js' } },
);

const pollution = fc
  .tuple(fc.constantFrom(...POLLUTION_KEYS), fc.constantFrom('polluted', 'isAdmin', 'toString'))
  .map(([key, property]): unknown => {
    // Built as JSON text later, so "__proto__" stays an own key on the wire.
    return key === 'constructor'
      ? { rawJson: `{"prototype":{"${property}":"yes"}}` }
      : { rawJson: `{"${property}":"yes"}` };
  });

const controlString = fc.string({
  unit: fc.constantFrom(
    '\u0000',
    '\u0001',
    '\u0008',
    '\n',
    '\r',
    '\t',
    '\u001b',
    '\u007f',
    '\u0085',
    '\u2028',
    '\u202e',
    '\ufeff',
    '\ud800',
    '\udfff',
    'a',
    '/',
    ' ',
  ),
  maxLength: 40,
});

const hugeString = fc
  .tuple(fc.integer({ min: 100, max: 20_000 }), fc.constantFrom('a', 'é', '😀', '\u0000', '%'))
  .map(([length, unit]) => unit.repeat(length));

const urlish = fc.oneof(
  fc.webUrl({ withQueryParameters: true, withFragments: true }),
  fc.constantFrom(
    'javascript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'http://paypal.com@evil.example/',
    'https://user:pass@example.com/',
    'http://[::1]/',
    'http://127.0.0.1:22/',
    'HTTPS://EXAMPLE.COM',
    'https://exa mple.com/',
    'https://example.com/\u0000',
    'https://xn--80ak6aa92e.com/',
    'https://аpple.com/',
    'http://',
    'https:///path',
    '//example.com',
    'ftp://example.com/',
    `https://example.com/${'a'.repeat(2100)}`,
    '   https://example.com/padded   ',
  ),
);

/** Anything a JSON body can hold, biased to what breaks parsers, validators and queries. */
export const hostileValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  nosqlOperator,
  pollution,
  controlString,
  fc.string({ unit: 'binary', maxLength: 60 }),
  hugeString,
  urlish,
  fc.constantFrom<unknown>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    -0,
    1e308,
    Number.MAX_SAFE_INTEGER + 2,
    '',
    ' ',
    [],
    {},
    '301',
    302.0,
    '0x12d',
  ),
);

function field<T>(valid: fc.Arbitrary<T>): fc.Arbitrary<unknown> {
  return fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: hostileValue, weight: 1 });
}

/** Serialises entries to JSON text, keeping keys such as "__proto__" as plain own keys. */
export function toJsonText(value: unknown): string {
  if (typeof value === 'object' && value !== null && 'rawJson' in value) {
    return (value as { rawJson: string }).rawJson;
  }
  if (Array.isArray(value)) return `[${value.map(toJsonText).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/** A create body: each field valid most of the time, hostile otherwise, plus hostile extra keys. */
export function hostileBody(credentials: Credentials): fc.Arbitrary<string> {
  const fields = fc.record(
    {
      organization_key: field(fc.constant(credentials.organizationKey)),
      url_group_id: field(fc.constantFrom(credentials.urlGroupId, Number(credentials.urlGroupId))),
      url: field(fc.webUrl({ withQueryParameters: true })),
      alias: field(
        fc.oneof(fc.stringMatching(/^[A-Za-z0-9_-]{1,64}$/), fc.constantFrom(null, '', undefined)),
      ),
      redirect_type: field(fc.constantFrom(301, 302, 303, 307, 308, null)),
    },
    { requiredKeys: [] },
  );
  const extras = fc.array(
    fc.tuple(
      fc.oneof(fc.constantFrom(...POLLUTION_KEYS, '$where', '$gt', 'a.b', ''), fc.string()),
      hostileValue,
    ),
    { maxLength: 3 },
  );
  return fc.tuple(fields, extras, fc.boolean()).map(([known, extra, extrasFirst]) => {
    const knownEntries = Object.entries(known).filter(([, v]) => v !== undefined);
    const entries = extrasFirst ? [...extra, ...knownEntries] : [...knownEntries, ...extra];
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${toJsonText(v)}`).join(',')}}`;
  });
}

const MAX_BODY = 16 * 1024;

/** Turns JSON text into the bytes sent, with the charset and encoding headers that go with it. */
const wireEncoding = fc.oneof(
  { weight: 6, arbitrary: fc.constant({ kind: 'utf8' as const }) },
  fc.constantFrom(
    { kind: 'utf8-bom' as const },
    { kind: 'utf16le-bom' as const, charset: 'utf-16' },
    { kind: 'utf16le' as const, charset: 'utf-16le' },
    { kind: 'latin1' as const, charset: 'latin1' },
    { kind: 'latin1' as const, charset: 'iso-8859-1' },
    { kind: 'utf8' as const, charset: 'bogus-charset' },
    { kind: 'utf8' as const, charset: 'UTF-8' },
    { kind: 'gzip' as const, encoding: 'gzip' },
    { kind: 'utf8' as const, encoding: 'gzip' },
    { kind: 'utf8' as const, encoding: 'br' },
    { kind: 'utf8' as const, encoding: 'compress' },
    { kind: 'utf8' as const, encoding: 'identity' },
  ),
  fc
    .tuple(fc.nat(), fc.constantFrom(0xff, 0xfe, 0xc3, 0x80, 0xed, 0x00))
    .map(([at, byte]) => ({ kind: 'invalid-utf8' as const, at, byte })),
  fc.nat().map((at) => ({ kind: 'truncated' as const, at })),
);

type WireEncoding = typeof wireEncoding extends fc.Arbitrary<infer T> ? T : never;

function encode(text: string, wire: WireEncoding): Buffer {
  switch (wire.kind) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'utf8-bom':
      return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')]);
    case 'utf16le-bom':
      return Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    case 'utf16le':
      return Buffer.from(text, 'utf16le');
    case 'latin1':
      return Buffer.from(text, 'latin1');
    case 'gzip':
      return gzipSync(Buffer.from(text, 'utf8'));
    case 'invalid-utf8': {
      const bytes = Buffer.from(text, 'utf8');
      const at = bytes.length === 0 ? 0 : wire.at % bytes.length;
      return Buffer.concat([bytes.subarray(0, at), Buffer.from([wire.byte]), bytes.subarray(at)]);
    }
    case 'truncated': {
      const bytes = Buffer.from(text, 'utf8');
      return bytes.subarray(0, bytes.length === 0 ? 0 : wire.at % bytes.length);
    }
  }
}

const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    undefined,
    '',
    'APPLICATION/JSON',
    'application/json;',
    'application/json; charset=utf-8; foo=bar',
    'application/json-patch+json',
    'application/jsonx',
    'text/plain',
    'text/json',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=xyz',
    '*/*',
    'application/json, text/plain',
  ),
);

export function hostileAuthorization(token: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 8, arbitrary: fc.constant(`Bearer ${token}`) },
    fc.constantFrom(
      undefined,
      '',
      'Bearer',
      'Bearer ',
      `bearer ${token}`,
      `Bearer  ${token}`,
      `Bearer ${token}x`,
      `Basic ${Buffer.from('a:b').toString('base64')}`,
      `Bearer ${'a'.repeat(8000)}`,
      'Bearer {"$gt":""}',
      'Bearer __proto__',
    ),
    fc.string({ unit: 'binary-ascii', maxLength: 80 }).map((s) => s.replace(/[^\x20-\x7e]/g, '')),
  );
}

/** Bodies whose shape, not content, is the attack. */
const structuralBody = fc.oneof(
  fc.json({ maxDepth: 4 }),
  fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes).toString('latin1')),
  fc.integer({ min: 1, max: 10_000 }).map((depth) => '['.repeat(depth) + ']'.repeat(depth)),
  fc
    .integer({ min: 1, max: 3_000 })
    .map((depth) => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)),
  fc
    .integer({ min: MAX_BODY - 64, max: 3 * MAX_BODY })
    .map((size) => `{"url":"https://example.com/","pad":"${'x'.repeat(size)}"}`),
  fc.constantFrom('', ' ', 'null', '[]', '""', '0', 'true', '{', '}', '{"a":1,}', "{'a':1}", 'NaN'),
);

/** One complete hostile create request. */
export function hostileCreate(credentials: Credentials): fc.Arbitrary<HostileCreate> {
  const text = fc.oneof(
    { weight: 4, arbitrary: hostileBody(credentials) },
    { weight: 1, arbitrary: structuralBody },
  );
  return fc
    .tuple(text, wireEncoding, contentType, hostileAuthorization(credentials.token))
    .map(([json, wire, type, authorization]) => {
      const headers: OutgoingHttpHeaders = {};
      const charset = 'charset' in wire ? wire.charset : undefined;
      if (type !== undefined)
        headers['Content-Type'] = charset ? `${type}; charset=${charset}` : type;
      if ('encoding' in wire) headers['Content-Encoding'] = wire.encoding;
      if (authorization !== undefined) headers.Authorization = authorization;
      return {
        label: `${wire.kind} ${String(headers['Content-Type'])} ${json.slice(0, 200)}`,
        headers,
        body: encode(json, wire),
      };
    });
}

/** Strings only (protobuf fields are typed): control characters, huge, URL-ish, operator-ish. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  controlString,
  fc.string({ unit: 'binary', maxLength: 60 }),
  hugeString,
  urlish,
  fc.constantFrom(
    '',
    ' ',
    '{"$gt":""}',
    '$where',
    '__proto__',
    'constructor',
    'prototype',
    'null',
    'undefined',
    '0',
    '-1',
    '1e400',
  ),
);
