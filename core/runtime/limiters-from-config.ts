import { createMemoryRateLimiter } from '../adapters/rate-limit/flexible-rate-limiter';
import { createMongoRateLimiters } from '../adapters/mongodb/mongo-rate-limiters';
import { createRedisLimiters } from '../adapters/redis/redis-limiters';
import type { Logger } from '../ports/logger';
import type { RateLimiter } from '../ports/rate-limiter';
import type { Store } from '../ports/store';
import { ConfigError, type Config } from './config';

export interface Limiters {
  perToken: RateLimiter;
  authFailures: RateLimiter;
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
  if (config.REDIS_SENTINEL_NAME && !config.REDIS_URL) {
    throw new ConfigError('REDIS_SENTINEL_NAME needs REDIS_URL listing the sentinels');
  }
  if (config.REDIS_URL) {
    return createRedisLimiters({
      url: config.REDIS_URL,
      sentinelName: config.REDIS_SENTINEL_NAME,
      perTokenLimit: config.RATE_LIMIT_PER_MINUTE,
      authFailureLimit: config.AUTH_FAILURES_PER_MINUTE,
      logger,
    });
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
