import { createMemoryRateLimiter } from '../adapters/rate-limit/flexible-rate-limiter';
import { createMongoRateLimiters } from '../adapters/mongodb/mongo-rate-limiters';
import { createRedisLimiters } from '../adapters/redis/redis-limiters';
import type { Logger } from '../ports/logger';
import type { RateLimiter } from '../ports/rate-limiter';
import type { Store } from '../ports/store';
import type { LimiterBackendState } from '../metrics/shortlink-metrics';
import type { Config } from './config';

export interface Limiters {
  perToken: RateLimiter;
  authFailures: RateLimiter;
  /** Shared limiters that can fall back to per-process counting say where they count now. */
  backendState?: () => LimiterBackendState;
  close(): Promise<void>;
}

/**
 * Process-local limiters; shared ones (Redis, MongoDB) when configured. With REDIS_URL the limits
 * hold across every process on that Redis (keys `shortlink:ratelimit:...`).
 */
export async function createLimitersFromConfig(
  config: Config,
  logger: Logger,
  /** The MongoDB limiters reuse a MongoDB store's client (one connection pool). */
  store?: Store,
): Promise<Limiters> {
  if (config.REDIS_URL) {
    const redis = await createRedisLimiters({
      url: config.REDIS_URL,
      perTokenLimit: config.RATE_LIMIT_PER_MINUTE,
      authFailureLimit: config.AUTH_FAILURES_PER_MINUTE,
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
    });
  }
  return {
    perToken: createMemoryRateLimiter({ limit: config.RATE_LIMIT_PER_MINUTE, keyPrefix: 'token' }),
    authFailures: createMemoryRateLimiter({
      limit: config.AUTH_FAILURES_PER_MINUTE,
      keyPrefix: 'authfail',
    }),
    close: () => Promise.resolve(),
  };
}
