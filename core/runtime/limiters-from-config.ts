import { createMemoryRateLimiter } from '../adapters/rate-limit/flexible-rate-limiter';
import type { Logger } from '../ports/logger';
import type { RateLimiter } from '../ports/rate-limiter';
import type { Config } from './config';

export interface Limiters {
  perToken: RateLimiter;
  authFailures: RateLimiter;
  close(): Promise<void>;
}

/** Process-local limiters; shared ones (Redis, MongoDB) when configured. */
export function createLimitersFromConfig(config: Config, _logger: Logger): Promise<Limiters> {
  return Promise.resolve({
    perToken: createMemoryRateLimiter({ limit: config.RATE_LIMIT_PER_MINUTE, keyPrefix: 'token' }),
    authFailures: createMemoryRateLimiter({
      limit: config.AUTH_FAILURES_PER_MINUTE,
      keyPrefix: 'authfail',
    }),
    close: () => Promise.resolve(),
  });
}
