import { LRUCache } from 'lru-cache';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter';
import { RATE_LIMIT_WINDOW_SECONDS } from '../../rate-limit/limits';

interface Window {
  consumed: number;
  /** Epoch milliseconds. */
  resetAt: number;
}

interface CappedMemoryRateLimiterOptions {
  limit: number;
  windowSeconds?: number;
  /**
   * How many keys are held at most; past it the least recently counted key is forgotten. Keys
   * chosen by clients (their addresses) cannot then grow the process's memory without bound.
   */
  maxKeys: number;
  now?: () => number;
}

/**
 * A process-local fixed-window limiter on an LRU map with a size cap, for keys a client chooses
 * (rate-limiter-flexible's memory limiter holds every key and a timer per key until its window
 * ends). Forgetting a key only ever forgives: its next request starts a fresh window. Counting
 * is synchronous inside the process, so concurrent requests never see the same count.
 */
export class CappedMemoryRateLimiter implements RateLimiter {
  readonly limit: number;
  readonly windowSeconds: number;
  private readonly windows: LRUCache<string, Window>;
  private readonly now: () => number;

  constructor(options: CappedMemoryRateLimiterOptions) {
    this.limit = options.limit;
    this.windowSeconds = options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS;
    this.now = options.now ?? Date.now;
    this.windows = new LRUCache({ max: options.maxKeys });
  }

  /** How many keys are held (never more than `maxKeys`). */
  get size(): number {
    return this.windows.size;
  }

  consume(key: string): Promise<RateLimitDecision> {
    const now = this.now();
    let window = this.current(key, now);
    if (!window) {
      window = { consumed: 0, resetAt: now + this.windowSeconds * 1000 };
      this.windows.set(key, window);
    }
    window.consumed += 1;
    return Promise.resolve(this.decide(window));
  }

  peek(key: string): Promise<RateLimitDecision | null> {
    const window = this.current(key, this.now());
    return Promise.resolve(window ? this.decide(window) : null);
  }

  /** Its own window, read in the process: the refusal it would answer now, if any. */
  knownRefusal(key: string): RateLimitDecision | undefined {
    const window = this.current(key, this.now());
    return window && window.consumed > this.limit ? this.decide(window) : undefined;
  }

  private current(key: string, now: number): Window | undefined {
    const window = this.windows.get(key);
    if (window && window.resetAt <= now) {
      this.windows.delete(key);
      return undefined;
    }
    return window;
  }

  private decide(window: Window): RateLimitDecision {
    return {
      allowed: window.consumed <= this.limit,
      limit: this.limit,
      remaining: Math.max(0, this.limit - window.consumed),
      resetAt: window.resetAt,
    };
  }
}
