import type { Logger } from '../../ports/logger';
import type { RateLimiter } from '../../ports/rate-limiter';
import {
  DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES,
  LIMITER_KEY_PREFIX,
  RATE_LIMIT_WINDOW_SECONDS,
} from '../../rate-limit/limits';
import { withWiderNetworkBudgets } from '../rate-limit/network-budgets';
import { rememberingRefusals } from '../rate-limit/remembered-refusals';
import { FallbackMonitor } from './fallback-monitor';
import {
  closeRedisClient,
  createRedisClient,
  waitUntilReady,
  withoutArguments,
  type RedisClient,
  type RedisConnectionOptions,
} from './redis-connection';
import { describeTopology, parseRedisTopology } from './redis-topology';
import { createRedisRateLimiter } from './redis-rate-limiter';
import { isConnectionRefusal } from './topology-errors';

export interface RedisLimitersOptions extends RedisConnectionOptions {
  /** REDIS_URL: one URL, or a comma-separated list (a Cluster's nodes, or sentinels). */
  url: string;
  /** REDIS_SENTINEL_NAME: with it, `url` lists sentinels watching this master. */
  sentinelName?: string | undefined;
  perTokenLimit: number;
  authFailureLimit: number;
  /** FOLLOW_MISSES_PER_MINUTE: unknown aliases followed per client address; 0 or absent: none. */
  followMissLimit?: number;
  /**
   * AUTH_FAILURE_TRACKED_ADDRESSES: while Redis is away, the insurance limiters of the
   * per-address budgets hold at most this many client addresses each (default 100,000), and the
   * follow-miss limiter remembers at most this many refusals.
   */
  authFailureTrackedAddresses?: number;
  /** The window of both limits, in whole seconds (60 for "per minute"). */
  windowSeconds?: number;
  /**
   * Start of every key, default `shortlink`: keys are `<prefix>:ratelimit:token:<token sha-256>`,
   * `<prefix>:ratelimit:authfail:<client address>` and `<prefix>:ratelimit:followmiss:<client
   * address>`. Deployments (or tests) sharing one Redis
   * keep apart by giving each its own prefix.
   */
  keyPrefix?: string;
  /** How long start-up waits for the first connection before it goes on without (ms). */
  startupTimeoutMs?: number;
  /** While falling back, how often one call tries Redis again (ms; default 1000). */
  retryIntervalMs?: number;
  logger: Logger;
}

export interface RedisLimiters {
  perToken: RateLimiter;
  authFailures: RateLimiter;
  /**
   * Unknown aliases followed per client address, remembering each refusal in the process until
   * its window resets (a refused address costs no round trip); null when `followMissLimit` is 0.
   */
  followMisses: RateLimiter | null;
  /** The connection the limiters share (tests read keys and TTLs through it). */
  client: RedisClient;
  monitor: FallbackMonitor;
  /** Quits the Redis connection. */
  close(): Promise<void>;
}

/**
 * The per-token and per-address limiters on one shared Redis connection, so every process on
 * that Redis counts against the same budgets.
 *
 * Redis is not the store of record, so it is not required to start or to serve: when it is
 * unreachable at start-up the process starts anyway, with a warning, on the insurance limiters
 * (each process counts on its own), and switches to Redis as soon as the connection is ready; the
 * same happens when it goes away and comes back mid-run. Each switch is logged once.
 */
export async function createRedisLimiters(options: RedisLimitersOptions): Promise<RedisLimiters> {
  const topology = parseRedisTopology(options.url, options.sentinelName);
  const backend = describeTopology(topology);
  const prefix = `${options.keyPrefix ?? 'shortlink'}:ratelimit`;
  const windowSeconds = options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS;
  const client = createRedisClient(topology, options);
  let closed: Promise<void> | undefined;

  // Without an error listener ioredis prints every failed reconnection attempt to the console.
  client.on('error', (error: unknown) => {
    options.logger.debug(
      { redis: backend, err: withoutArguments(error) },
      'Redis connection error',
    );
  });
  const startup = await waitUntilReady(client, options.startupTimeoutMs ?? 5000);
  const monitor = new FallbackMonitor(
    options.logger,
    backend,
    startup.ready ? 'shared' : 'insurance',
    options.retryIntervalMs,
  );
  if (startup.ready) {
    options.logger.info({ redis: backend }, 'rate limits are shared through Redis');
  } else if (isConnectionRefusal(startup.error)) {
    monitor.connectionRefused(startup.error);
  } else {
    options.logger.warn(
      { redis: backend, err: startup.error },
      'Redis unreachable at start-up: rate limits are counted per process by the in-memory insurance limiter until it answers',
    );
  }
  // Registered after the start-up wait so that start-up's outcome is logged only by the lines
  // above; from here on the monitor logs each switch once.
  client.on('connect', () => monitor.connectionOpened());
  client.on('error', (error: unknown) => {
    if (isConnectionRefusal(error)) monitor.connectionRefused(withoutArguments(error));
  });
  client.on('ready', () => monitor.connectionReady());
  client.on('close', () => {
    if (!closed) monitor.connectionLost();
  });

  const trackedAddresses =
    options.authFailureTrackedAddresses ?? DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES;
  const followMissLimit = options.followMissLimit ?? 0;
  return {
    perToken: createRedisRateLimiter({
      client,
      monitor,
      topology: topology.kind,
      limit: options.perTokenLimit,
      windowSeconds,
      keyPrefix: `${prefix}:${LIMITER_KEY_PREFIX.perToken}`,
    }),
    authFailures: createRedisRateLimiter({
      client,
      monitor,
      topology: topology.kind,
      limit: options.authFailureLimit,
      windowSeconds,
      keyPrefix: `${prefix}:${LIMITER_KEY_PREFIX.authFailures}`,
      maxKeys: trackedAddresses,
    }),
    followMisses:
      followMissLimit > 0
        ? withWiderNetworkBudgets(
            (limit) =>
              rememberingRefusals(
                createRedisRateLimiter({
                  client,
                  monitor,
                  topology: topology.kind,
                  limit,
                  windowSeconds,
                  keyPrefix: `${prefix}:${LIMITER_KEY_PREFIX.followMisses}`,
                  maxKeys: trackedAddresses,
                }),
                { maxKeys: trackedAddresses },
              ),
            followMissLimit,
          )
        : null,
    client,
    monitor,
    close: () => {
      if (!closed) {
        monitor.silence();
        closed = closeRedisClient(client);
      }
      return closed;
    },
  };
}
