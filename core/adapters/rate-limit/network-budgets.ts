import { widerNetworkKeyOf } from '../../auth/address-key';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter';
import { FOLLOW_MISS_WIDER_NETWORKS } from '../../rate-limit/limits';

/**
 * Makes the limiter of one budget: `limit` per window, for keys of networks of `prefixLength`
 * bits (absent: the client's own key, an IPv4 address or an IPv6 /64).
 */
type BudgetLimiterFactory = (limit: number, prefixLength?: number) => RateLimiter;

/** The decision that tells most: a refusal (the one refused longest), else the least left. */
function strictest(decisions: RateLimitDecision[]): RateLimitDecision {
  const refusals = decisions.filter((decision) => !decision.allowed);
  const pool = refusals.length > 0 ? refusals : decisions;
  return pool.reduce((chosen, decision) =>
    refusals.length > 0
      ? decision.resetAt > chosen.resetAt
        ? decision
        : chosen
      : decision.remaining < chosen.remaining
        ? decision
        : chosen,
  );
}

/**
 * A per-address budget (`limit` per window, made by `make`) that counts an IPv6 /64 key also in
 * the /56 and the /48 around it (FOLLOW_MISS_WIDER_NETWORKS), each a budget of its own: a count
 * goes to all three, concurrently, and is refused when any of them is spent. Other keys (IPv4)
 * count in their own budget only. knownRefusal tells of a refusal any of the three knows of.
 */
export function withWiderNetworkBudgets(make: BudgetLimiterFactory, limit: number): RateLimiter {
  const own = make(limit);
  const wider = FOLLOW_MISS_WIDER_NETWORKS.map(({ prefixLength, factor }) => ({
    prefixLength,
    limiter: make(limit * factor, prefixLength),
  }));
  /** Each budget `key` counts in, with the key it counts under there. */
  const budgetsOf = (key: string): Array<{ limiter: RateLimiter; key: string }> => {
    const budgets = [{ limiter: own, key }];
    for (const { prefixLength, limiter } of wider) {
      const network = widerNetworkKeyOf(key, prefixLength);
      if (network !== undefined) budgets.push({ limiter, key: network });
    }
    return budgets;
  };
  return {
    limit: own.limit,
    windowSeconds: own.windowSeconds,
    consume: async (key) =>
      strictest(
        await Promise.all(budgetsOf(key).map((budget) => budget.limiter.consume(budget.key))),
      ),
    peek: async (key) => {
      const states = await Promise.all(
        budgetsOf(key).map((budget) => budget.limiter.peek(budget.key)),
      );
      const known = states.filter((state): state is RateLimitDecision => state !== null);
      return known.length > 0 ? strictest(known) : null;
    },
    knownRefusal: (key) => {
      const refusals = budgetsOf(key)
        .map((budget) => budget.limiter.knownRefusal?.(budget.key))
        .filter((refusal): refusal is RateLimitDecision => refusal !== undefined);
      return refusals.length > 0 ? strictest(refusals) : undefined;
    },
  };
}
