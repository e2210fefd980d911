import { CappedMemoryRateLimiter } from '../adapters/rate-limit/capped-memory-rate-limiter';
import { createClusterRateLimiter } from '../adapters/rate-limit/cluster-rate-limiter';
import { createMemoryRateLimiter } from '../adapters/rate-limit/flexible-rate-limiter';
import { withWiderNetworkBudgets } from '../adapters/rate-limit/network-budgets';
import { rememberingRefusals } from '../adapters/rate-limit/remembered-refusals';
import { createMongoRateLimiters } from '../adapters/mongodb/mongo-rate-limiters';
import { createRedisLimiters } from '../adapters/redis/redis-limiters';
import type { Logger } from '../ports/logger';
import { LIMITER_KEY_PREFIX } from '../rate-limit/limits';
import type { RateLimiter } from '../ports/rate-limiter';
import type { Store } from '../ports/store';
import type { LimiterBackendState } from '../metrics/shortlink-metrics';
import type { Config } from './config';

export interface Limiters {
  perToken: RateLimiter;
  authFailures: RateLimiter;
  /** Unknown aliases followed per client address; null when FOLLOW_MISSES_PER_MINUTE is 0. */
  followMisses: RateLimiter | null;
  /** Shared limiters that can fall back to per-process counting say where they count now. */
  backendState?: () => LimiterBackendState;
  close(): Promise<void>;
}

/** Where limits are counted when neither Redis nor MongoDB is configured. */
export type LocalLimits = 'process' | 'cluster';

/**
 * Shared limiters (Redis, MongoDB) when configured: with REDIS_URL the limits hold across every
 * process on that Redis (keys `shortlink:ratelimit:...`). Otherwise counted in this process, or,
 * in a worker of a WORKERS cluster (`local: 'cluster'`), in the cluster's primary for all workers.
 */
export async function createLimitersFromConfig(
  config: Config,
  logger: Logger,
  /** The MongoDB limiters reuse a MongoDB store's client (one connection pool). */
  store?: Store,
  local: LocalLimits = 'process',
): Promise<Limiters> {
  if (config.REDIS_URL) {
    const redis = await createRedisLimiters({
      url: config.REDIS_URL,
      sentinelName: config.REDIS_SENTINEL_NAME,
      perTokenLimit: config.RATE_LIMIT_PER_MINUTE,
      authFailureLimit: config.AUTH_FAILURES_PER_MINUTE,
      followMissLimit: config.FOLLOW_MISSES_PER_MINUTE,
      authFailureTrackedAddresses: config.AUTH_FAILURE_TRACKED_ADDRESSES,
      logger,
    });
    return {
      ...redis,
      backendState: () => (redis.monitor.mode === 'shared' ? 'shared' : 'fallback'),
    };
  }
  if (config.MONGODB_URI) {
    return createMongoRateLimiters({
      store,
      uri: config.MONGODB_URI,
      perTokenLimit: config.RATE_LIMIT_PER_MINUTE,
      authFailureLimit: config.AUTH_FAILURES_PER_MINUTE,
      followMissLimit: config.FOLLOW_MISSES_PER_MINUTE,
      trackedAddresses: config.AUTH_FAILURE_TRACKED_ADDRESSES,
      operationTimeoutMs: config.MONGODB_TIMEOUT_MS,
      createIndexes: config.MONGODB_CREATE_INDEXES,
    });
  }
  const createLimiter = local === 'cluster' ? createClusterRateLimiter : createMemoryRateLimiter;
  return {
    perToken: createLimiter({
      limit: config.RATE_LIMIT_PER_MINUTE,
      keyPrefix: LIMITER_KEY_PREFIX.perToken,
    }),
    authFailures:
      local === 'cluster'
        ? createClusterRateLimiter({
            limit: config.AUTH_FAILURES_PER_MINUTE,
            keyPrefix: LIMITER_KEY_PREFIX.authFailures,
            maxKeys: config.AUTH_FAILURE_TRACKED_ADDRESSES,
          })
        : new CappedMemoryRateLimiter({
            limit: config.AUTH_FAILURES_PER_MINUTE,
            maxKeys: config.AUTH_FAILURE_TRACKED_ADDRESSES,
          }),
    followMisses: localFollowMisses(config, local),
    close: () => Promise.resolve(),
  };
}

/**
 * The follow-miss budget counted in this process (its windows answer `knownRefusal` themselves),
 * or in the WORKERS primary, remembering in the worker each refusal it answered.
 */
function localFollowMisses(config: Config, local: LocalLimits): RateLimiter | null {
  const limit = config.FOLLOW_MISSES_PER_MINUTE;
  if (limit === 0) return null;
  const maxKeys = config.AUTH_FAILURE_TRACKED_ADDRESSES;
  if (local === 'process') {
    return withWiderNetworkBudgets(
      (budget) => new CappedMemoryRateLimiter({ limit: budget, maxKeys }),
      limit,
    );
  }
  // The primary holds one budget per key prefix: each network size is a budget of its own.
  return withWiderNetworkBudgets(
    (budget, prefixLength) =>
      rememberingRefusals(
        createClusterRateLimiter({
          limit: budget,
          keyPrefix: `${LIMITER_KEY_PREFIX.followMisses}${prefixLength === undefined ? '' : `/${prefixLength}`}`,
          maxKeys,
        }),
        { maxKeys },
      ),
    limit,
  );
}
