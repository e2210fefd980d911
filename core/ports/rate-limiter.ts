export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Epoch milliseconds when the current window resets. */
  resetAt: number;
}

export interface RateLimitDecision extends RateLimitState {
  allowed: boolean;
}

/** Counts requests per key within a fixed window. */
export interface RateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  /** Counts one request for `key`, atomically: concurrent calls never see the same count. */
  consume(key: string): Promise<RateLimitDecision>;
  /** The current state for `key` without counting; null when nothing was counted yet. */
  peek(key: string): Promise<RateLimitDecision | null>;
  /**
   * A refusal of `key` whose window still runs, when the limiter knows of it without a round trip
   * to a backend (its own in-process window, or a refusal it answered and remembers); undefined
   * when it knows of none. Counts nothing. Optional: a limiter without it is always asked.
   */
  knownRefusal?(key: string): RateLimitDecision | undefined;
}
