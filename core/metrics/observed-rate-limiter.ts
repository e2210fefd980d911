import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter';
import type { LimiterName, ShortlinkMetrics } from './shortlink-metrics';

/**
 * The limiter with its calls timed into `shortlink_rate_limiter_call_duration_seconds` and its
 * refusals counted in `shortlink_rate_limit_refusals_total{limiter}`: a decision that says no,
 * from counting a request (consume: a token's request, or an address's failed check) or from
 * looking at a budget (peek).
 */
export function observedRateLimiter(
  limiter: RateLimiter,
  name: LimiterName,
  metrics: ShortlinkMetrics,
): RateLimiter {
  const refused = metrics.rateLimitRefused(name);
  const observe = <T extends RateLimitDecision | null | void>(
    call: Promise<T>,
    timer: { observe(startedAt: number): void },
    startedAt: number,
  ): Promise<T> => {
    call.then(
      (decision) => {
        timer.observe(startedAt);
        if (decision && !decision.allowed) refused();
      },
      () => timer.observe(startedAt),
    );
    return call;
  };
  const consumeTimer = metrics.limiterCall(name, 'consume');
  const peekTimer = metrics.limiterCall(name, 'peek');
  const knownRefusal = limiter.knownRefusal?.bind(limiter);
  return {
    limit: limiter.limit,
    windowSeconds: limiter.windowSeconds,
    consume: (key) => observe(limiter.consume(key), consumeTimer, performance.now()),
    peek: (key) => observe(limiter.peek(key), peekTimer, performance.now()),
    // In the process, no backend call: neither timed nor counted as a decision.
    ...(knownRefusal ? { knownRefusal } : {}),
  };
}
