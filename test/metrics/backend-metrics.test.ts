import pino from 'pino';
import { createMemoryStore, ShortlinkMetrics, type Organization } from '../../core';
import { createRuntime, createUrlGuardFromConfig, loadConfig } from '../../core/runtime';
import { startFakeSafeBrowsing, type FakeSafeBrowsing } from '../url-guard/fake-safe-browsing';
import { eventually } from '../support/eventually';
import { freePort } from '../support/free-port';
import { MetricsSnapshot, promtoolLints } from '../support/exposition';

const logger = pino({ level: 'silent' });
const lints = promtoolLints();
const organization: Organization = {
  id: 'acme',
  name: 'Acme',
  domain: 'acme.link',
  scheme: 'https',
  active: true,
  keyHash: 'x',
};

/** The URL guard as the runtime makes it, asking `fake` for reputations (failing open). */
function guardOn(
  fake: FakeSafeBrowsing,
  metrics: ShortlinkMetrics,
  extra: Record<string, string> = {},
) {
  return createUrlGuardFromConfig(
    loadConfig({
      SAFE_BROWSING_URL: fake.url,
      SAFE_BROWSING_KEY: 'k',
      SAFE_BROWSING_FAIL: 'open',
      ...extra,
    }),
    logger,
    createMemoryStore(),
    metrics,
  );
}

describe('URL-guard and reputation metrics', () => {
  let fake: FakeSafeBrowsing;
  beforeAll(async () => {
    fake = await startFakeSafeBrowsing();
    fake.threats.set('https://reported.example/login', { threatType: 'SOCIAL_ENGINEERING' });
  });
  afterAll(() => fake.close());

  it('counts refusals by rule and lookups by how they were answered', async () => {
    const metrics = new ShortlinkMetrics({ processMetrics: false });
    const guard = await guardOn(fake, metrics);
    try {
      const check = (url: string) => guard.guard.check(new URL(url), { organization });
      expect((await check('http://paypal.com@evil.example/')).blocked).toBe(true); // credentials
      expect((await check('https://clean.example/a')).blocked).toBe(false); // miss
      expect((await check('https://clean.example/a')).blocked).toBe(false); // cache hit
      expect((await check('https://reported.example/login')).blocked).toBe(true); // miss, refused
      fake.mode = { kind: 'status', status: 500 };
      expect((await check('https://other.example/')).blocked).toBe(false); // error, fail open
      fake.mode = { kind: 'answer' };

      const snapshot = await MetricsSnapshot.of(metrics.registry);
      const lookups = (result: string) =>
        snapshot.value('shortlink_safe_browsing_lookups_total', { result });
      expect(['miss', 'cache_hit', 'error', 'throttled'].map(lookups)).toEqual([2, 1, 1, 0]);
      const refusals = (rule: string) =>
        snapshot.value('shortlink_url_guard_refusals_total', { rule });
      expect(['credentials', 'reputation', 'link-domain'].map(refusals)).toEqual([1, 1, 0]);
      expect(snapshot.value('shortlink_safe_browsing_queued')).toBe(0);
      lints.add('the URL guard metrics', await metrics.registry.metrics());
    } finally {
      await guard.close();
    }
  });
});

describe('reputation lookups waiting for a slot', () => {
  let fake: FakeSafeBrowsing;
  beforeAll(async () => {
    fake = await startFakeSafeBrowsing();
    fake.mode = { kind: 'hang' };
  });
  afterAll(() => fake.close());

  it('shows a queued lookup in the gauge, and counts one that gave up waiting as throttled', async () => {
    const metrics = new ShortlinkMetrics({ processMetrics: false });
    const guard = await guardOn(fake, metrics, {
      SAFE_BROWSING_CONCURRENCY: '1',
      SAFE_BROWSING_MAX_WAIT_MS: '300',
      SAFE_BROWSING_TIMEOUT_MS: '1500',
    });
    try {
      const check = (url: string) => guard.guard.check(new URL(url), { organization });
      const value = async (name: string, labels?: Record<string, string>) =>
        (await MetricsSnapshot.of(metrics.registry)).value(name, labels);
      // The first call holds the only slot (the fake never answers); the second waits for it.
      const first = check('https://slow.example/first');
      const second = check('https://slow.example/second');
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(await value('shortlink_safe_browsing_queued')).toBe(1);
      // Past SAFE_BROWSING_MAX_WAIT_MS the waiting check gives up: no verdict, fail open.
      expect((await second).blocked).toBe(false);
      expect(await value('shortlink_safe_browsing_lookups_total', { result: 'throttled' })).toBe(1);
      // The first call times out (an error); its slot goes to the queued job, which makes no call.
      expect((await first).blocked).toBe(false);
      expect(await value('shortlink_safe_browsing_lookups_total', { result: 'error' })).toBe(1);
      // Bottleneck hands the freed slot to the waiting job on a later turn; that job makes no call.
      await eventually(
        async () => (await value('shortlink_safe_browsing_queued')) === 0,
        'the queue to empty',
        1000,
      );
      expect(await value('shortlink_safe_browsing_queued')).toBe(0);
      expect(fake.requests).toHaveLength(1);
    } finally {
      await guard.close();
    }
  });
});

describe('the Redis limiters state', () => {
  const runtimeOn = (redisUrl: string) =>
    createRuntime(
      loadConfig({
        REDIS_URL: redisUrl,
        METRICS_PORT: '9464', // measured; createRuntime binds no port
        DATA_DIR: ':memory:',
        LOG_LEVEL: 'silent',
      }),
      logger,
    );
  const state = async (metrics: ShortlinkMetrics) => {
    const snapshot = await MetricsSnapshot.of(metrics.registry);
    return ['shared', 'fallback'].map((s) =>
      snapshot.value('shortlink_redis_limiter_state', { state: s }),
    );
  };

  it('reads shared while Redis answers', async () => {
    const runtime = await runtimeOn('redis://127.0.0.1:6379');
    try {
      expect(await state(runtime.metrics!)).toEqual([1, 0]);
      // The gauge's name and help lint clean with the rest of the runtime's metrics.
      lints.add("the runtime's metrics with Redis", await runtime.metrics!.registry.metrics());
    } finally {
      await runtime.close();
    }
  });

  it('reads fallback while Redis is away', async () => {
    const runtime = await runtimeOn(`redis://127.0.0.1:${await freePort()}`);
    try {
      expect(await state(runtime.metrics!)).toEqual([0, 1]);
    } finally {
      await runtime.close();
    }
  });
});

lints.declareLintTest(2);
