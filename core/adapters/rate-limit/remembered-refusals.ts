import { LRUCache } from 'lru-cache';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter';

export interface RememberedRefusalsOptions {
  /** How many keys' refusals are held at most; past it the least recently refused is forgotten. */
  maxKeys: number;
  /** Epoch milliseconds (tests pass their own). */
  now?: () => number;
}

/**
 * `limiter` (counting in a shared backend: Redis, MongoDB, a WORKERS primary) that remembers in
 * the process each refusal it answered, until the refused window resets, and tells of it
 * through `knownRefusal` without a round trip. A fixed window that has refused a key refuses it
 * until it resets (its count only grows), so the memory never says no where the backend would
 * say yes; another process's refusals are learnt by this one's next call. Keys are client
 * addresses, so the memory is bounded: forgetting one only costs the next call's round trip.
 */
export function rememberingRefusals(
  limiter: RateLimiter,
  options: RememberedRefusalsOptions,
): RateLimiter {
  const now = options.now ?? Date.now;
  const refusals = new LRUCache<string, RateLimitDecision>({ max: options.maxKeys });
  const remembered = (decision: RateLimitDecision | null, key: string) => {
    if (decision && !decision.allowed && decision.resetAt > now()) refusals.set(key, decision);
    return decision;
  };
  return {
    limit: limiter.limit,
    windowSeconds: limiter.windowSeconds,
    consume: async (key) => remembered(await limiter.consume(key), key) as RateLimitDecision,
    peek: async (key) => remembered(await limiter.peek(key), key),
    knownRefusal: (key) => {
      const refusal = refusals.get(key);
      if (refusal === undefined) return undefined;
      if (refusal.resetAt > now()) return refusal;
      refusals.delete(key);
      return undefined;
    },
  };
}
