import { Cluster, Redis } from 'ioredis';
import { createCore, hashSecret, silentLogger, type Core, type Logger } from '../../core';
import { createRedisLimiters, type RedisLimiters } from '../../core/adapters/redis/redis-limiters';
import { parseRedisTopology } from '../../core/adapters/redis/redis-topology';
import { createTestCore, TEST_CLIENT_ADDRESS, type CoreFixture } from './core-fixture';
import { SHARED_REDIS_URL, uniqueKeyPrefix } from './redis-process';

export interface SharedLimitOptions {
  url: string;
  /** REDIS_SENTINEL_NAME, when `url` lists sentinels. */
  sentinelName?: string;
  keyPrefix: string;
  perTokenLimit?: number;
  authFailureLimit?: number;
  /** Unknown aliases followed per client address (60 unless given). */
  followMissLimit?: number;
  windowSeconds?: number;
  /** One logger per instance (index 0 and 1); silent when absent. */
  loggers?: [Logger, Logger];
  commandTimeoutMs?: number;
  retryIntervalMs?: number;
}

/**
 * Two cores as two processes would run them: each with its own limiters and its own Redis
 * connection, sharing one Redis for counting and one provisioned store (as processes on one
 * database would).
 */
export interface TwoCores {
  fixture: CoreFixture;
  cores: [Core, Core];
  limiters: [RedisLimiters, RedisLimiters];
  /** A separate connection for the test to look at keys with. */
  inspector: Redis | Cluster;
  tokenKey(): string;
  authFailureKey(address?: string): string;
  followMissKey(address?: string): string;
  close(): Promise<void>;
}

export async function createTwoCores(options: SharedLimitOptions): Promise<TwoCores> {
  const limitersFor = (logger: Logger) =>
    createRedisLimiters({
      url: options.url,
      sentinelName: options.sentinelName,
      keyPrefix: options.keyPrefix,
      perTokenLimit: options.perTokenLimit ?? 60,
      authFailureLimit: options.authFailureLimit ?? 30,
      followMissLimit: options.followMissLimit ?? 60,
      windowSeconds: options.windowSeconds ?? 60,
      logger,
      // The tests kill Redis on purpose: come back quickly once it is there again.
      maxReconnectDelayMs: 200,
      ...(options.commandTimeoutMs === undefined
        ? {}
        : { commandTimeoutMs: options.commandTimeoutMs }),
      ...(options.retryIntervalMs === undefined
        ? {}
        : { retryIntervalMs: options.retryIntervalMs }),
      startupTimeoutMs: 10_000,
    });
  const first = await limitersFor(options.loggers?.[0] ?? silentLogger);
  const second = await limitersFor(options.loggers?.[1] ?? silentLogger);
  const fixture = await createTestCore({
    rateLimiter: first.perToken,
    authFailureLimiter: first.authFailures,
    followMissLimiter: first.followMisses,
  });
  const other = createCore({
    store: fixture.store,
    rateLimiter: second.perToken,
    authFailureLimiter: second.authFailures,
    followMissLimiter: second.followMisses,
  });
  const inspector = inspectorFor(options.url, options.sentinelName);
  inspector.on('error', () => undefined);
  return {
    fixture,
    cores: [fixture.core, other],
    limiters: [first, second],
    inspector,
    tokenKey: () => `${options.keyPrefix}:ratelimit:token:${hashSecret(fixture.token)}`,
    authFailureKey: (address = TEST_CLIENT_ADDRESS) =>
      `${options.keyPrefix}:ratelimit:authfail:${address}`,
    followMissKey: (address = TEST_CLIENT_ADDRESS) =>
      `${options.keyPrefix}:ratelimit:followmiss:${address}`,
    close: async () => {
      await Promise.all([first.close(), second.close()]);
      // A Cluster's keys are spread over its nodes; the tests' private clusters are discarded.
      if (inspector instanceof Redis) {
        await deleteKeys(inspector, options.keyPrefix).catch(() => undefined);
      }
      inspector.disconnect();
    },
  };
}

export interface SharedRedisLimiters {
  limiters: RedisLimiters;
  keyPrefix: string;
  /** Removes the limiters' keys, then closes them. */
  close(): Promise<void>;
}

/**
 * Limiters on the shared Redis with the service's default budgets (60 per token, 30 failed token
 * checks per address, a minute), under a key prefix of their own named after `name`.
 */
export async function limitersOnSharedRedis(name: string): Promise<SharedRedisLimiters> {
  const keyPrefix = uniqueKeyPrefix(name);
  const limiters = await createRedisLimiters({
    url: SHARED_REDIS_URL,
    keyPrefix,
    perTokenLimit: 60,
    authFailureLimit: 30,
    logger: silentLogger,
  });
  return {
    limiters,
    keyPrefix,
    close: async () => {
      await deleteKeys(limiters.client as Redis, keyPrefix);
      await limiters.close();
    },
  };
}

/** Removes every key under `prefix` (tests clean up after themselves on the shared Redis). */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 100);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/** A plain client on the same deployment (queueing commands until connected, unlike ours). */
function inspectorFor(url: string, sentinelName: string | undefined): Redis | Cluster {
  const topology = parseRedisTopology(url, sentinelName);
  if (topology.kind === 'cluster') return new Cluster(topology.nodes);
  if (topology.kind === 'sentinel') {
    return new Redis({
      sentinels: topology.sentinels,
      name: topology.masterName,
      maxRetriesPerRequest: 1,
    });
  }
  return new Redis(url, { maxRetriesPerRequest: 1 });
}
