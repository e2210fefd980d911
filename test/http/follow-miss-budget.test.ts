import { status } from '@grpc/grpc-js';
import {
  CappedMemoryRateLimiter,
  createMemoryStore,
  ErrorCode,
  withCaches,
  type CachedStore,
} from '../../core';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { startHttp, type HttpAnswer, type HttpFixture } from '../support/http-fixture';
import { decodeStatusDetails } from '../grpc/error-details';
import { metadataText, startGrpc, type GrpcFixture } from '../support/grpc-fixture';
import { newLink } from '../storage/fixtures';

const BUDGET = 3;
const MESSAGE = 'Too many unknown short links from this address; slow down.';

/**
 * A core with the service's caches and a follow-miss budget of 3 per minute, and a link `kept`
 * (held in the link cache once followed).
 */
async function budgetedCore(): Promise<CoreFixture<CachedStore>> {
  const f = await createTestCore({
    store: withCaches(createMemoryStore(), { linkCacheSize: 100, identityTtlSeconds: 10 }),
    followMissLimiter: new CappedMemoryRateLimiter({ limit: BUDGET, maxKeys: 100 }),
  });
  await f.caller().links.create(f.body({ alias: 'kept', redirect_type: 302 }) as never);
  return f;
}

function follow(
  http: HttpFixture,
  alias: string,
  options: { method?: string; forwardedFor?: string; accept?: string } = {},
): Promise<HttpAnswer> {
  const headers: Record<string, string> = { host: 'acme.link' };
  if (options.forwardedFor) headers['x-forwarded-for'] = options.forwardedFor;
  if (options.accept) headers.accept = options.accept;
  return http.request({ method: options.method ?? 'GET', path: `/${alias}`, headers });
}

async function statuses(
  http: HttpFixture,
  aliases: string[],
  forwardedFor?: string,
): Promise<number[]> {
  const answered = [];
  for (const alias of aliases) answered.push((await follow(http, alias, { forwardedFor })).status);
  return answered;
}

const unknown = (count: number, prefix = 'nope') =>
  Array.from({ length: count }, (_, i) => `${prefix}${i}`);

describe('REST: unknown aliases limited per client address', () => {
  let f: CoreFixture<CachedStore>;
  let http: HttpFixture;

  beforeEach(async () => {
    f = await budgetedCore();
    http = await startHttp(f.core);
  });
  afterEach(() => http.close());

  it('answers 404 to the budget, then 429 (code 19) with Retry-After, the JSON body, no body on HEAD', async () => {
    expect(await statuses(http, unknown(BUDGET))).toEqual([404, 404, 404]);
    // Every answer here was checked against the OpenAPI document by the fixture.
    for (const accept of [undefined, 'text/html', 'application/json']) {
      const refused = await follow(http, 'one-more', { accept });
      expect(refused.status).toBe(429);
      expect(refused.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(refused.json()).toEqual({
        data: null,
        code: ErrorCode.RATE_LIMITED,
        errors: [MESSAGE],
      });
      const retryAfter = refused.headers['retry-after'];
      expect(retryAfter).toMatch(/^\d+$/);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(60);
      // A token's budget figures have nothing to say here.
      expect(refused.headers['x-ratelimit-limit']).toBeUndefined();
      expect(refused.headers['location']).toBeUndefined();
    }
    const head = await follow(http, 'one-more', { method: 'HEAD' });
    expect([head.status, head.text]).toEqual([429, '']);
    expect(head.headers['retry-after']).toMatch(/^\d+$/);
  });

  it('still redirects to a link the process holds in its cache; a link it does not hold waits', async () => {
    expect((await follow(http, 'kept')).status).toBe(302);
    await f.store.backend.links.insert(newLink({ alias: 'elsewhere', organizationId: 'acme' }));
    await statuses(http, unknown(BUDGET + 1));
    const kept = await follow(http, 'kept');
    expect([kept.status, kept.headers.location]).toEqual([
      302,
      'https://example.com/some/long/path?q=1',
    ]);
    expect((await follow(http, 'elsewhere')).status).toBe(429);
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: a made-up address buys no fresh budget', async () => {
    const answered = [];
    for (const [i, alias] of unknown(BUDGET + 2).entries()) {
      answered.push((await follow(http, alias, { forwardedFor: `198.51.100.${i}` })).status);
    }
    expect(answered).toEqual([404, 404, 404, 429, 429]);
  });
});

describe('REST behind TRUST_PROXY: the budget is the forwarded client’s', () => {
  let http: HttpFixture;

  beforeEach(async () => {
    http = await startHttp((await budgetedCore()).core, { trustProxy: 'loopback' });
  });
  afterEach(() => http.close());

  it('keys the budget by the client address the trusted proxy forwards', async () => {
    expect(await statuses(http, unknown(BUDGET + 1), '198.51.100.1')).toEqual([404, 404, 404, 429]);
    expect(await statuses(http, ['fresh'], '198.51.100.2')).toEqual([404]);
    // The address the proxy saw, not one the client wrote before it.
    expect(await statuses(http, ['spoofed'], '198.51.100.2, 198.51.100.1')).toEqual([429]);
  });

  it('counts IPv6 clients by their /64: one budget for the network, another for the next', async () => {
    const network = ['2001:db8:1:2::1', '2001:db8:1:2::2', '2001:db8:1:2:ffff:ffff:ffff:ffff'];
    const answered = [];
    for (const [i, alias] of unknown(BUDGET + 1).entries()) {
      answered.push((await follow(http, alias, { forwardedFor: network[i % 3] })).status);
    }
    expect(answered).toEqual([404, 404, 404, 429]);
    expect(await statuses(http, ['next'], '2001:db8:1:3::1')).toEqual([404]);
    expect(await statuses(http, ['same'], '2001:db8:1:2::abcd')).toEqual([429]);
  });
});

describe('gRPC ResolveShortLink shares the budget of the REST follows', () => {
  let f: CoreFixture<CachedStore>;
  let http: HttpFixture;
  let grpc: GrpcFixture;

  beforeEach(async () => {
    f = await budgetedCore();
    http = await startHttp(f.core);
    grpc = await startGrpc(f.core);
  });
  afterEach(async () => {
    await grpc.close();
    await http.close();
  });

  it('counts its unknown aliases with REST’s from the same address, then answers RESOURCE_EXHAUSTED', async () => {
    expect(await statuses(http, unknown(BUDGET - 1))).toEqual([404, 404]);
    const last = await grpc.resolve({ domain: 'acme.link', alias: 'grpc-miss' });
    expect(last.error?.code).toBe(status.NOT_FOUND);
    const refused = await grpc.resolve({ domain: 'acme.link', alias: 'grpc-over' });
    expect(refused.error?.code).toBe(status.RESOURCE_EXHAUSTED);
    const trailers = refused.status.metadata;
    expect(metadataText(trailers, 'shortlink-error-code')).toBe(String(ErrorCode.RATE_LIMITED));
    expect(Number(metadataText(trailers, 'retry-after'))).toBeGreaterThanOrEqual(1);
    expect(metadataText(trailers, 'x-ratelimit-limit')).toBeUndefined();
    expect(decodeStatusDetails(trailers).errorInfo).toEqual({
      reason: 'RATE_LIMITED',
      domain: 'shortlink',
      metadata: { code: String(ErrorCode.RATE_LIMITED) },
    });
    expect((await follow(http, 'rest-over')).status).toBe(429);
  });
});
