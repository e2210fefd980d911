import { RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { BackendUnavailableError } from '../../errors/shortlink-error';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter';
import { RATE_LIMIT_WINDOW_SECONDS } from '../../rate-limit/limits';

function decide(limit: number, res: RateLimiterRes, now: number): RateLimitDecision {
  return {
    allowed: res.consumedPoints <= limit,
    limit,
    remaining: Math.max(0, limit - res.consumedPoints),
    resetAt: now + res.msBeforeNext,
  };
}

/**
 * The rate-limiter port on rate-limiter-flexible: any of its limiters (memory, Redis, MongoDB)
 * configured with `points` = limit and `duration` = window seconds.
 */
export class FlexibleRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;

  constructor(private readonly limiter: RateLimiterAbstract) {
    this.limit = limiter.points;
    this.windowSeconds = limiter.duration;
  }

  async consume(key: string): Promise<RateLimitDecision> {
    try {
      return decide(this.limit, await this.limiter.consume(key), Date.now());
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) return decide(this.limit, rejection, Date.now());
      throw new BackendUnavailableError('rate-limit store unavailable', { cause: rejection });
    }
  }

  async peek(key: string): Promise<RateLimitDecision | null> {
    try {
      const res = await this.limiter.get(key);
      return res ? decide(this.limit, res, Date.now()) : null;
    } catch (error) {
      throw new BackendUnavailableError('rate-limit store unavailable', { cause: error });
    }
  }
}

/** One budget: `limit` requests per key in `windowSeconds` (a minute unless given). */
export interface LimiterOptions {
  limit: number;
  windowSeconds?: number;
  keyPrefix: string;
}

/** The same, in rate-limiter-flexible's words: `points` per `duration` seconds. */
export function flexibleOptions(options: LimiterOptions) {
  return {
    points: options.limit,
    duration: options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS,
    keyPrefix: options.keyPrefix,
  };
}

/** A process-local limiter: the embedded default. */
export function createMemoryRateLimiter(options: LimiterOptions): FlexibleRateLimiter {
  return new FlexibleRateLimiter(new RateLimiterMemory(flexibleOptions(options)));
}
