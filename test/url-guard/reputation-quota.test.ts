import { status as GrpcStatus } from '@grpc/grpc-js';
import { createCore, createMemoryRateLimiter, ErrorCode, silentLogger } from '../../core';
import { createUrlGuardFromConfig, loadConfig, type ConfiguredUrlGuard } from '../../core/runtime';
import { metadataText, startGrpc, validRequest, type GrpcFixture } from '../support/grpc-fixture';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { startHttp, type HttpFixture } from '../support/http-fixture';
import { startFakeSafeBrowsing, type FakeSafeBrowsing } from './fake-safe-browsing';

/**
 * The reputation lookup's quota, spent by one organization with unique URLs (the cache cannot
 * help): the request is answered 503 / code 23 with a retry time, never let through (the fail
 * mode is the default, open) and never refused as a threat; another organization still has its
 * share.
 */
describe('a used-up reputation quota (REST and gRPC)', () => {
  let fake: FakeSafeBrowsing;
  let f: CoreFixture;
  let guard: ConfiguredUrlGuard;
  let http: HttpFixture;
  let grpc: GrpcFixture;

  beforeEach(async () => {
    fake = await startFakeSafeBrowsing();
    f = await createTestCore();
    const config = loadConfig({ SAFE_BROWSING_URL: fake.url, SAFE_BROWSING_PER_MINUTE: '6' });
    expect(config.SAFE_BROWSING_FAIL).toBe('open');
    guard = await createUrlGuardFromConfig(config, silentLogger, f.store);
    const core = createCore({
      ...f.core.deps,
      urlGuard: guard.guard,
      rateLimiter: createMemoryRateLimiter({ limit: 1000, keyPrefix: 'quota-test' }),
    });
    http = await startHttp(core);
    grpc = await startGrpc(core);
  });

  afterEach(async () => {
    await http.close();
    await grpc.close();
    await guard.close();
    await fake.close();
  });

  it('answers 503, code 23 and Retry-After past the quota, and keeps a share for others', async () => {
    // Six lookups a minute, acme alone: it may take half, keeping the rest for a newcomer.
    const acme = (i: number) =>
      http.create(f.body({ url: `https://unique-${i}.example/` }), f.token);
    for (let i = 0; i < 3; i += 1) expect((await acme(i)).status).toBe(200);
    const refused = await acme(3);
    expect(refused.status).toBe(503);
    expect(refused.json()).toEqual({
      data: null,
      code: ErrorCode.BACKEND_UNAVAILABLE,
      errors: [
        expect.stringMatching(/^The URL reputation check is at its quota; retry in \d+ s\.$/),
      ],
    });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(60);
    expect(fake.requests).toHaveLength(3);
    expect(f.linkCount()).toBe(3);

    // Over gRPC, the same answer.
    const overGrpc = await grpc.create(
      validRequest(f, { url: 'https://unique-grpc.example/' }),
      f.token,
    );
    expect(overGrpc.status.code).toBe(GrpcStatus.UNAVAILABLE);
    expect(metadataText(overGrpc.status.metadata, 'shortlink-error-code')).toBe(
      String(ErrorCode.BACKEND_UNAVAILABLE),
    );
    expect(Number(metadataText(overGrpc.status.metadata, 'retry-after'))).toBeGreaterThanOrEqual(1);

    // beta (another organization of the same user) still gets its share: 6 / (2 + 1) = 2.
    const beta = (i: number) =>
      http.create(
        f.body({ organization_key: f.otherOrganizationKey, url: `https://beta-${i}.example/` }),
        f.token,
      );
    expect((await beta(0)).status).toBe(200);
    expect((await beta(1)).status).toBe(200);
    expect((await beta(2)).status).toBe(503);
    // An answer already known is served from the cache, quota or not.
    expect((await acme(0)).status).toBe(200);
    expect(fake.requests).toHaveLength(5);
  });
});
