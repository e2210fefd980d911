import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import OpenAPIBackend, { type Document } from 'openapi-backend';
import pino from 'pino';
import { parseLongUrl } from '../../core/links/long-url';
import { credentialsRule } from '../../core/url-guard/credentials-rule';
import { createUrlGuardChain } from '../../core/url-guard/url-guard-chain';
import { ErrorCode, type ErrorReason } from '../../core';
import {
  methodNotAllowed,
  NEVER_ON_REST,
  notFound,
} from '../../gateway-http/openapi/error-responses';
import { UNLISTED_REQUESTS } from '../../gateway-http/openapi/openapi-document';
import { openApiText } from '../../gateway-http/openapi/openapi-text';
import { createTestCore } from '../support/core-fixture';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { openApiViolations } from '../support/openapi-conformance';

const COMMITTED = join(__dirname, '..', '..', 'gateway-http', 'openapi.json');

describe('the OpenAPI 3.1 document', () => {
  let http: HttpFixture;
  let token: string;
  let domain: string;
  let body: (overrides?: Record<string, unknown>) => Record<string, unknown>;

  beforeAll(async () => {
    const f = await createTestCore();
    token = f.token;
    domain = f.domain;
    body = f.body;
    http = await startHttp(f.core);
  });
  afterAll(() => http.close());

  it('is committed exactly as the code generates it (npm run openapi:generate)', () => {
    expect(readFileSync(COMMITTED, 'utf8')).toBe(openApiText());
  });

  it('is served at GET /openapi.json', async () => {
    const answer = await http.request({ path: '/openapi.json' });
    expect(answer.status).toBe(200);
    expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(answer.json()).toEqual(JSON.parse(readFileSync(COMMITTED, 'utf8')));
    expect((answer.json() as { openapi: string }).openapi).toBe('3.1.0');
  });

  it('lists the files of the reference page it serves', async () => {
    for (const file of ['init.js', 'swagger-ui.css', 'swagger-ui-bundle.js', 'favicon-32x32.png']) {
      for (const method of ['GET', 'HEAD']) {
        expect((await http.request({ method, path: `/docs/${file}` })).status).toBe(200);
      }
    }
    expect((await http.request({ path: '/docs/nothing.js' })).json()).toMatchObject({
      code: ErrorCode.NOT_FOUND,
    });
  });

  it.each([
    ['Range', 'bytes=99999999-'],
    ['Range', 'bytes=5-1'],
    ['If-Match', '"nope"'],
    ['If-Unmodified-Since', 'Thu, 01 Jan 1970 00:00:00 GMT'],
  ])(
    'serves a file of the page whole whatever its %s (%s): 200, never a 500',
    async (name, value) => {
      const answer = await http.request({
        path: '/docs/swagger-ui.css',
        headers: { [name]: value },
      });
      expect([answer.status, answer.headers['content-type']]).toEqual([
        200,
        'text/css; charset=utf-8',
      ]);
      expect(answer.text).toContain('.swagger-ui');
    },
  );

  it("shows as code 18's example a message the service gives", async () => {
    const document = JSON.parse(openApiText()) as {
      paths: Record<string, Record<string, { responses: Record<string, unknown> }>>;
    };
    const refused = document.paths['/api/create']?.['post']?.responses['422'] as {
      content: Record<string, { examples: Record<string, { value: { errors: string[] } }> }>;
    };
    const example = refused.content['application/json']?.examples['code18']?.value;
    const guarded = await createTestCore({
      urlGuard: createUrlGuardChain([credentialsRule], pino({ level: 'silent' })),
    });
    const server = await startHttp(guarded.core);
    try {
      const answer = await server.create(
        guarded.body({ url: 'https://paypal.com@evil.example/' }),
        guarded.token,
      );
      expect(answer.json()).toEqual(example);
    } finally {
      await server.close();
    }
  });

  it("holds url's 2048 characters once trimmed, as the service does", async () => {
    const api = await new OpenAPIBackend({
      definition: JSON.parse(openApiText()) as Document,
      quick: true,
    }).init();
    const request = (url: string) => ({
      method: 'post',
      path: '/api/create',
      headers: { 'content-type': 'application/json' },
      body: body({ url }),
    });
    const padded = `  https://example.com/${'a'.repeat(2048 - 20)}  `;
    expect((await http.create(body({ url: padded }), token)).status).toBe(200);
    expect(api.validateRequest(request(padded), 'createShortLink').errors ?? []).toEqual([]);
    const tooLong = `https://example.com/${'a'.repeat(2048 - 19)}`;
    expect((await http.create(body({ url: tooLong }), token)).json()).toMatchObject({
      code: ErrorCode.URL_INVALID,
    });
    expect(api.validateRequest(request(tooLong), 'createShortLink').errors).not.toEqual([]);
  });

  it('requires Retry-After on a 503 of a create, as every 23 there carries it', () => {
    const document = JSON.parse(openApiText()) as {
      paths: Record<string, Record<string, { responses: Record<string, Record<string, unknown>> }>>;
    };
    const unavailable = document.paths['/api/create']?.['post']?.responses['503'];
    expect(unavailable?.['headers']).toMatchObject({ 'Retry-After': { required: true } });
  });

  it('documents the body rules the core enforces (a body the schema refuses is refused)', async () => {
    const document = JSON.parse(openApiText()) as {
      components: {
        schemas: {
          CreateShortLinkRequest: {
            required: string[];
            properties: Record<string, Record<string, unknown>>;
          };
        };
      };
    };
    const request = document.components.schemas.CreateShortLinkRequest;
    expect(request.required).toEqual(['organization_key', 'url_group_id', 'url']);
    expect(request.properties.alias).toMatchObject({
      anyOf: [{ type: 'string', maxLength: 64, pattern: '^[A-Za-z0-9_-]*$' }, { type: 'null' }],
    });
    expect((await http.create(body({ alias: 'a'.repeat(65) }), token)).json()).toMatchObject({
      code: ErrorCode.ALIAS_TOO_LONG,
    });
    expect((await http.create(body({ alias: 'a'.repeat(64) }), token)).status).toBe(200);
  });

  it('catches an answer that does not conform', async () => {
    const answer = await http.create(body({ url: 'nope' }), token);
    const exchange = { method: 'POST', path: '/api/create', ...answer };
    expect(await openApiViolations(exchange)).toEqual([]);
    // The same body under another status, a code the status does not have, a missing header.
    expect(await openApiViolations({ ...exchange, status: 401 })).not.toEqual([]);
    expect(
      await openApiViolations({
        ...exchange,
        text: JSON.stringify({ data: null, code: ErrorCode.TOKEN_MISSING, errors: ['x'] }),
      }),
    ).not.toEqual([]);
    const { 'x-request-id': _id, ...withoutId } = answer.headers;
    expect(await openApiViolations({ ...exchange, headers: withoutId })).toEqual([
      'POST /api/create -> 422: required header X-Request-Id missing',
    ]);
    expect(await openApiViolations({ ...exchange, status: 418 })).toEqual([
      'POST /api/create -> 418: status not documented for createShortLink',
    ]);
  });

  it('lists every code REST answers, each where it is answered, and none it never answers (29)', () => {
    const document = JSON.parse(openApiText()) as {
      paths: Record<string, Record<string, { operationId: string; responses: object }>>;
    };
    // Where each code is listed: "operationId status".
    const listed = new Map<number, string[]>();
    for (const operations of Object.values(document.paths)) {
      for (const { operationId, responses } of Object.values(operations)) {
        for (const [status, response] of Object.entries(responses)) {
          const json = (response as { content?: Record<string, { schema?: object }> }).content?.[
            'application/json'
          ]?.schema as { properties?: { code?: { enum?: number[]; const?: number } } } | undefined;
          const code = json?.properties?.code;
          for (const value of code?.enum ?? (code?.const === undefined ? [] : [code.const])) {
            listed.set(value, [...(listed.get(value) ?? []), `${operationId} ${status}`]);
          }
        }
      }
    }
    // What no operation describes, as the document's description says it: an unlisted path (404)
    // or method on /api/create (405).
    const description = (document as unknown as { info: { description: string } }).info.description;
    expect(description).toContain(UNLISTED_REQUESTS);
    for (const [status, response] of [
      ['404', notFound],
      ['405', methodNotAllowed],
    ] as const) {
      const { content } = response as unknown as {
        content: { 'application/json': { schema: { properties: { code: { enum: number[] } } } } };
      };
      const code = content['application/json'].schema.properties.code.enum;
      expect(code).toHaveLength(1);
      expect(UNLISTED_REQUESTS).toContain(`${status}, code ${code[0]}`);
      listed.set(code[0]!, [...(listed.get(code[0]!) ?? []), `unlisted ${status}`]);
    }
    const answered = (Object.keys(ErrorCode) as ErrorReason[])
      .filter((reason) => !NEVER_ON_REST.has(reason))
      .map((reason) => ErrorCode[reason]);
    expect([...listed.keys()].filter((code) => code !== 0).sort((a, b) => a - b)).toEqual(
      answered.sort((a, b) => a - b),
    );
    expect(listed.get(ErrorCode.ARGUMENT_INVALID)).toBeUndefined();
    expect(listed.get(ErrorCode.LINK_DISABLED)).toEqual(['followShortLink 410']);
    expect(listed.get(ErrorCode.METHOD_NOT_ALLOWED)).toEqual(['unlisted 405']);
  });

  it('documents both bodies of a 410 of following, and catches a media type not listed', async () => {
    const exchange = {
      method: 'GET',
      path: '/gone',
      status: 410,
      headers: {
        'x-request-id': 'r1',
        'cache-control': 'no-store',
        vary: 'Accept',
        'x-content-type-options': 'nosniff',
        'content-type': 'text/html; charset=utf-8',
      },
      text: '<!doctype html>',
    };
    expect(await openApiViolations(exchange)).toEqual([]);
    expect(
      await openApiViolations({
        ...exchange,
        headers: { ...exchange.headers, 'content-type': 'application/json; charset=utf-8' },
        text: JSON.stringify({ data: null, code: ErrorCode.LINK_DISABLED, errors: ['x'] }),
      }),
    ).toEqual([]);
    expect(
      await openApiViolations({
        ...exchange,
        headers: { ...exchange.headers, 'content-type': 'text/plain' },
      }),
    ).toEqual(['GET /gone -> 410: media type text/plain not documented']);
    expect(await openApiViolations({ ...exchange, status: 404 })).toContain(
      'GET /gone -> 404: media type text/html not documented',
    );
  });

  it('lists only the methods a path serves: /api/create is POST alone, as its Allow says', async () => {
    const document = JSON.parse(openApiText()) as {
      paths: Record<string, Record<string, unknown>>;
    };
    const listed = Object.keys(document.paths['/api/create'] ?? {}).map((m) => m.toUpperCase());
    expect(listed).toEqual(['POST']);
    for (const method of ['GET', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD']) {
      // The fixture checks each answer against the document: an unlisted method, as it says.
      const answer = await http.request({ method, path: '/api/create' });
      expect([method, answer.status]).toEqual([method, 405]);
      expect(answer.headers.allow?.split(/,\s*/)).toEqual(listed);
    }
    expect(
      await openApiViolations({
        method: 'DELETE',
        path: '/api/create',
        status: 405,
        headers: { 'x-request-id': 'r1', 'content-type': 'application/json; charset=utf-8' },
        text: JSON.stringify({
          data: null,
          code: ErrorCode.METHOD_NOT_ALLOWED,
          errors: ['Method not allowed; use POST.'],
        }),
      }),
    ).toEqual(['DELETE /api/create -> 405: required header Allow missing']);
  });

  it('lists only real operations: no HEAD beside its GET, no catch-all path', async () => {
    const document = JSON.parse(openApiText()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const operations = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations.filter((operation) => operation.startsWith('HEAD '))).toEqual([]);
    // Every operation answers with success when its path's parameters name something there is:
    // none stands for paths or methods that only fail.
    const link = await http.create(body({ alias: 'listed' }), token);
    expect(link.status).toBe(200);
    const real: Record<string, string> = { '/{alias}': '/listed', '/docs/{file}': '/docs/init.js' };
    for (const operation of operations) {
      const [method, path] = operation.split(' ') as [string, string];
      expect(path.includes('{') ? Object.hasOwn(real, path) : true).toBe(true);
      const answer =
        method === 'POST'
          ? await http.create(body(), token)
          : await http.request({ method, path: real[path] ?? path, headers: { host: domain } });
      expect([operation, answer.status < 400]).toEqual([operation, true]);
    }
  });

  it('answers a HEAD as its GET, status and headers, without a body', async () => {
    await http.create(body({ alias: 'headed' }), token);
    for (const path of [
      '/',
      '/headed',
      '/healthz',
      '/readyz',
      '/openapi.json',
      '/docs',
      '/docs/init.js',
      '/docs/nothing.js',
      '/nothing/here',
    ]) {
      const headers = { host: domain };
      const [get, head] = [
        await http.request({ path, headers }),
        await http.request({ method: 'HEAD', path, headers }),
      ];
      const same = ({ status, headers }: typeof get) => {
        // Date and the request id differ; a HEAD may leave Content-Length out (RFC 9110, 9.3.2).
        const { date: _date, 'x-request-id': _id, 'content-length': _length, ...rest } = headers;
        return { status, headers: rest };
      };
      expect([path, same(head)]).toEqual([path, same(get)]);
      expect([path, head.text]).toEqual([path, '']);
    }
  });

  it('gives url a pattern that holds the contract’s rule: httpfoo is no URL', async () => {
    const api = await new OpenAPIBackend({
      definition: JSON.parse(openApiText()) as Document,
      quick: true,
    }).init();
    const refusedByDocument = (url: string) =>
      (
        api.validateRequest(
          {
            method: 'post',
            path: '/api/create',
            headers: { 'content-type': 'application/json' },
            body: body({ url }),
          },
          'createShortLink',
        ).errors ?? []
      ).length > 0;
    const notUrls = [
      'httpfoo',
      'http',
      'https:',
      'http:/example.com',
      'https//example.com',
      'http://',
      'http:///example.com',
      'http:\\\\example.com',
      'http://?q=1',
      'http://#top',
      'ftp://example.com',
      'mailto:someone@example.com',
      'http://exa mple.com',
      'http://example.com/\u0001',
      'http://example.com/\u202e',
      `https://example.com/${'a'.repeat(2048 - 19)}`,
    ];
    for (const url of notUrls) {
      expect([url, refusedByDocument(url)]).toEqual([url, true]);
      expect([url, parseLongUrl(url.trim())]).toEqual([url, null]);
    }
    const urls = [
      'https://example.com',
      'HTTP://EXAMPLE.COM/x',
      ' \n https://example.com/a?b=c#d \t',
      'http://user:secret@example.com/',
      'https://例え.jp/パス',
      'http://[::1]:8080/',
    ];
    for (const url of urls) {
      expect([url, refusedByDocument(url)]).toEqual([url, false]);
      expect([url, parseLongUrl(url.trim()) === null]).toEqual([url, false]);
    }
  });

  it('refuses by its url pattern no URL the service accepts (property)', () => {
    const pattern = (
      JSON.parse(openApiText()) as {
        components: {
          schemas: { CreateShortLinkRequest: { properties: { url: { pattern: string } } } };
        };
      }
    ).components.schemas.CreateShortLinkRequest.properties.url.pattern;
    const withUnicode = new RegExp(pattern, 'u');
    const withoutFlags = new RegExp(pattern);
    const padding = fc.stringMatching(/^[ \t\n\r]{0,3}$/);
    const candidates = fc.oneof(
      fc.webUrl({
        validSchemes: ['http', 'https'],
        withQueryParameters: true,
        withFragments: true,
      }),
      fc.string({ unit: 'grapheme', maxLength: 40 }).map((rest) => `http://${rest}`),
      fc.string({ unit: 'binary', maxLength: 40 }),
    );
    fc.assert(
      fc.property(padding, candidates, padding, (before, candidate, after) => {
        const url = before + candidate + after;
        if (parseLongUrl(url.trim()) === null) return;
        expect([url, withUnicode.test(url), withoutFlags.test(url)]).toEqual([url, true, true]);
      }),
      { numRuns: 300 },
    );
  });

  it('keeps docs, openapi.json, api and metrics out of reach as aliases', async () => {
    for (const alias of ['docs', 'DOCS', 'api', 'metrics']) {
      expect((await http.create(body({ alias }), token)).json()).toMatchObject({
        code: ErrorCode.ALIAS_TAKEN,
      });
    }
    // "." is not an alias character: refused before availability is even asked.
    expect((await http.create(body({ alias: 'openapi.json' }), token)).json()).toMatchObject({
      code: ErrorCode.ALIAS_INVALID,
    });
  });
});
