import { eventually, LONG_WAIT_MS } from '../support/eventually';
import { Redis } from 'ioredis';
import { createCore, hashSecret, ShortlinkError, type Core, type ResponseInfo } from '../../core';
import { loadConfig } from '../../core/runtime';
import { createLimitersFromConfig } from '../../core/runtime/limiters-from-config';
import { captureLogs, type CapturedLogs } from '../support/log-capture';
import { createTestCore, type CoreFixture } from '../support/core-fixture';
import { freePort } from '../support/free-port';
import { RedisProcess, uniqueKeyPrefix } from '../support/redis-process';
import { createTwoCores, type TwoCores } from '../support/shared-limit-fixture';

jest.setTimeout(120_000);

const INSURANCE_WARNING = /insurance limiter/;
const BACK_AGAIN = /reachable again/;

function linesMatching(logs: CapturedLogs, pattern: RegExp): Array<Record<string, unknown>> {
  return logs.records().filter((record) => pattern.test(String(record.msg)));
}

/** The address every request of these tests comes from. */
const CLIENT_ADDRESS = '198.51.100.20';

/** Creates one link through `core` with the fixture's token; 'ok' or the error's code. */
async function createVia(core: Core, f: CoreFixture): Promise<'ok' | number> {
  const response: ResponseInfo = {};
  const caller = core.createCaller({
    authorization: `Bearer ${f.token}`,
    clientAddress: CLIENT_ADDRESS,
    response,
  });
  try {
    await caller.links.create(f.body() as never);
    return 'ok';
  } catch (error) {
    if (error instanceof ShortlinkError) return error.code;
    throw error;
  }
}

async function createMany(
  core: Core,
  f: CoreFixture,
  count: number,
): Promise<Array<'ok' | number>> {
  const outcomes: Array<'ok' | number> = [];
  for (let i = 0; i < count; i += 1) outcomes.push(await createVia(core, f));
  return outcomes;
}

/** Follows unknown aliases `count` times through `core` from `address`: each answer's code. */
async function missMany(core: Core, count: number, address = CLIENT_ADDRESS): Promise<number[]> {
  const codes: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const miss = core
      .createCaller({ clientAddress: address })
      .links.resolve({ domain: 'acme.link', alias: `nothere${i}` });
    codes.push(
      await miss.then(
        () => 0,
        (error: ShortlinkError) => error.code,
      ),
    );
  }
  return codes;
}

describe('Redis going away and coming back (a private redis-server)', () => {
  let redis: RedisProcess;
  let two: TwoCores | undefined;

  beforeEach(async () => {
    redis = await RedisProcess.start();
  });

  afterEach(async () => {
    await two?.close();
    two = undefined;
    await redis.stop();
  });

  it('serves under the insurance limiter while Redis is down, logs once, and shares again when it returns', async () => {
    const logs = [captureLogs(), captureLogs()] as const;
    two = await createTwoCores({
      url: redis.url,
      keyPrefix: uniqueKeyPrefix('outage'),
      perTokenLimit: 5,
      loggers: [logs[0].logger, logs[1].logger],
    });
    const { fixture: f, cores, limiters } = two;

    // Shared: 2 + 1 requests over both processes, counted in one key.
    expect(await createMany(cores[0], f, 2)).toEqual(['ok', 'ok']);
    expect(await createMany(cores[1], f, 1)).toEqual(['ok']);
    expect(await two.inspector.get(two.tokenKey())).toBe('3');

    await redis.stop();
    // Every request is still answered; each process counts on its own budget of 5.
    expect(await createMany(cores[0], f, 7)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 19, 19]);
    expect(await createMany(cores[1], f, 6)).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 19]);
    for (const monitor of limiters.map((l) => l.monitor)) expect(monitor.mode).toBe('insurance');
    // One warning per process for the whole outage, not one per request.
    for (const log of logs) {
      const warnings = linesMatching(log, INSURANCE_WARNING);
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toMatchObject({ level: 40, redis: `127.0.0.1:${redis.port}` });
    }

    await redis.start();
    await eventually(
      () => limiters.every((l) => l.monitor.mode === 'shared'),
      'both processes to use Redis again',
      LONG_WAIT_MS,
    );
    for (const log of logs) expect(linesMatching(log, BACK_AGAIN)).toHaveLength(1);

    // Shared again: the restarted (empty) Redis counts both processes' requests together.
    expect(await createMany(cores[0], f, 3)).toEqual(['ok', 'ok', 'ok']);
    expect(await createMany(cores[1], f, 3)).toEqual(['ok', 'ok', 19]);
    expect(await two.inspector.get(two.tokenKey())).toBe('6');
    for (const log of logs) {
      expect(linesMatching(log, INSURANCE_WARNING)).toHaveLength(1);
      expect(linesMatching(log, BACK_AGAIN)).toHaveLength(1);
    }
    // 3 + 5 + 5 + 5 links stored; no request failed with anything but 19.
    expect(f.linkCount()).toBe(18);
  });

  it('limits unknown aliases per process while Redis is down, and shares the budget again after', async () => {
    two = await createTwoCores({
      url: redis.url,
      keyPrefix: uniqueKeyPrefix('outage-follow'),
      followMissLimit: 3,
    });
    const { cores, limiters } = two;
    expect(await missMany(cores[0], 1)).toEqual([24]);
    expect(await missMany(cores[1], 1)).toEqual([24]);
    expect(await two.inspector.get(two.followMissKey(CLIENT_ADDRESS))).toBe('2');

    await redis.stop();
    // Each process counts the address on its own, with the same budget of 3.
    expect(await missMany(cores[0], 4)).toEqual([24, 24, 24, 19]);
    expect(await missMany(cores[1], 4)).toEqual([24, 24, 24, 19]);
    for (const monitor of limiters.map((l) => l.monitor)) expect(monitor.mode).toBe('insurance');

    await redis.start();
    await eventually(
      () => limiters.every((l) => l.monitor.mode === 'shared'),
      'both processes to use Redis again',
      LONG_WAIT_MS,
    );
    // Shared again (another address: a refusal answered meanwhile holds until its window ends).
    const other = '198.51.100.21';
    expect(await missMany(cores[0], 2, other)).toEqual([24, 24]);
    expect(await missMany(cores[1], 2, other)).toEqual([24, 19]);
    expect(await two.inspector.get(two.followMissKey(other))).toBe('4');
  });

  it('closes its connection even while Redis is down, without logging an outage', async () => {
    const logs = captureLogs();
    two = await createTwoCores({
      url: redis.url,
      keyPrefix: uniqueKeyPrefix('close'),
      loggers: [logs.logger, logs.logger],
    });
    const [first, second] = two.limiters;
    await first.close();
    expect(first.client.status).toBe('end');
    await redis.stop();
    await eventually(
      () => second.monitor.mode === 'insurance',
      'the other process to notice',
      LONG_WAIT_MS,
    );
    await second.close();
    // Between reconnection attempts there is no socket left; the next attempt is cancelled.
    expect(['end', 'reconnecting']).toContain(second.client.status);
    await expect(second.client.ping()).rejects.toThrow();
    // Only the second one's outage was noticed; closing on purpose is no outage.
    expect(linesMatching(logs, INSURANCE_WARNING)).toHaveLength(1);
  });
});

describe('REDIS_URL through the configuration', () => {
  it('starts with Redis unreachable (one warning, insurance limiter) and shares once it answers', async () => {
    const port = await freePort();
    const logs = captureLogs();
    const config = loadConfig({
      REDIS_URL: `redis://127.0.0.1:${port}`,
      RATE_LIMIT_PER_MINUTE: '2',
    });
    const limiters = await createLimitersFromConfig(config, logs.logger);
    let redis: RedisProcess | undefined;
    let inspector: Redis | undefined;
    try {
      expect(linesMatching(logs, /unreachable at start-up/)).toHaveLength(1);
      const f = await createTestCore({
        rateLimiter: limiters.perToken,
        authFailureLimiter: limiters.authFailures,
      });
      expect(await createMany(f.core, f, 3)).toEqual(['ok', 'ok', 19]);

      redis = await RedisProcess.start(port);
      await eventually(
        () => linesMatching(logs, BACK_AGAIN).length > 0,
        'the shared limiter to resume',
        LONG_WAIT_MS,
      );
      inspector = new Redis(redis.url);
      // A second process on the same configuration shares the budget through Redis.
      const otherLimiters = await createLimitersFromConfig(config, logs.logger);
      const other = createCore({
        store: f.store,
        rateLimiter: otherLimiters.perToken,
        authFailureLimiter: otherLimiters.authFailures,
      });
      try {
        expect(await createMany(f.core, f, 1)).toEqual(['ok']);
        expect(await createMany(other, f, 2)).toEqual(['ok', 19]);
      } finally {
        await otherLimiters.close();
      }
      // The documented key: shortlink:ratelimit:token:<SHA-256 of the token>. Valid tokens count
      // no failure, so the address's failure key (shortlink:ratelimit:authfail:<address>) is absent.
      const tokenKey = `shortlink:ratelimit:token:${hashSecret(f.token)}`;
      expect(await inspector.keys('*')).toEqual([tokenKey]);
      const ttl = await inspector.ttl(tokenKey);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(60);

      const clients = async () => (await inspector!.client('LIST')) as string;
      expect(await clients()).toContain('name=shortlink-ratelimit');
      await limiters.close();
      await eventually(
        async () => {
          return !(await clients()).includes('name=shortlink-ratelimit');
        },
        'the limiter connection to be gone',
        LONG_WAIT_MS,
      );
      expect(linesMatching(logs, INSURANCE_WARNING)).toHaveLength(1);
    } finally {
      await limiters.close();
      inspector?.disconnect();
      await redis?.stop();
    }
  });
});

describe('a Redis that hangs without closing the connection (SIGSTOP)', () => {
  let redis: RedisProcess;
  let two: TwoCores | undefined;

  beforeEach(async () => {
    redis = await RedisProcess.start();
  });

  afterEach(async () => {
    redis.resume();
    await two?.close();
    two = undefined;
    await redis.stop();
  });

  it('lets one call find out by the command timeout, then sends calls straight to the insurance', async () => {
    two = await createTwoCores({
      url: redis.url,
      keyPrefix: uniqueKeyPrefix('hang'),
      perTokenLimit: 50,
      commandTimeoutMs: 1000,
      // No second try within this test: exactly one call may reach the frozen Redis.
      retryIntervalMs: 600_000,
    });
    const { fixture: f, cores, limiters } = two;
    expect(await createMany(cores[0], f, 1)).toEqual(['ok']);
    redis.pause();
    expect(await createMany(cores[0], f, 10)).toEqual(Array(10).fill('ok'));
    expect(limiters[0].monitor.mode).toBe('insurance');
    // No 'close': the connection itself looks fine.
    expect(limiters[0].client.status).toBe('ready');
    redis.resume();
    // The frozen server now runs what was sent to it: the call that timed out (the second
    // request's count against its token). Nothing else of the ten went to Redis: the token's
    // count ends at 2, and valid tokens never wrote a failure count.
    const inspector = two.inspector;
    await eventually(
      async () => Number(await inspector.get(two!.tokenKey())) >= 2,
      'the backlog to run',
      LONG_WAIT_MS,
    );
    expect(await inspector.get(two.tokenKey())).toBe('2');
    expect(await inspector.get(two.authFailureKey(CLIENT_ADDRESS))).toBeNull();
  });

  it('logs the fallback once and notices by a later call that Redis answers again', async () => {
    const logs = captureLogs();
    two = await createTwoCores({
      url: redis.url,
      keyPrefix: uniqueKeyPrefix('hang-again'),
      perTokenLimit: 500,
      commandTimeoutMs: 1000,
      retryIntervalMs: 200,
      loggers: [logs.logger, logs.logger],
    });
    const { fixture: f, cores, limiters } = two;
    expect(await createMany(cores[0], f, 1)).toEqual(['ok']);
    redis.pause();
    expect(await createMany(cores[0], f, 3)).toEqual(['ok', 'ok', 'ok']);
    expect(limiters[0].monitor.mode).toBe('insurance');
    expect(linesMatching(logs, INSURANCE_WARNING)).toHaveLength(1);

    redis.resume();
    await eventually(
      async () => {
        expect(await createMany(cores[0], f, 1)).toEqual(['ok']);
        return limiters[0].monitor.mode === 'shared';
      },
      'a call to find Redis answering',
      LONG_WAIT_MS,
    );
    expect(linesMatching(logs, BACK_AGAIN)).toHaveLength(1);
    expect(linesMatching(logs, INSURANCE_WARNING)).toHaveLength(1);
  });
});
