/** The rate limits' defaults and names, defined once for the core, the configuration and every adapter. */

/** Requests per token per window (RATE_LIMIT_PER_MINUTE). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
/** Failed token checks per client address per window (AUTH_FAILURES_PER_MINUTE). */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 30;
/** Unknown aliases followed per client address per window (FOLLOW_MISSES_PER_MINUTE); 0: no budget. */
export const DEFAULT_FOLLOW_MISSES_PER_MINUTE = 60;
/**
 * The wider IPv6 networks an unknown alias from a /64 also counts in, each with its own budget of
 * `factor` × FOLLOW_MISSES_PER_MINUTE: a subscriber is often handed a /56 or a /48 (256 or 65,536
 * /64s), which would otherwise hold as many budgets. A miss is refused when any of the three is
 * spent.
 */
export const FOLLOW_MISS_WIDER_NETWORKS = [
  { prefixLength: 56, factor: 4 },
  { prefixLength: 48, factor: 16 },
] as const;
/**
 * Client addresses each in-memory per-address table tracks at most (AUTH_FAILURE_TRACKED_ADDRESSES):
 * the auth-failure limiter's windows (about 20 MB), the follow-miss limiter's, and the refusals a
 * shared follow-miss limiter remembers.
 */
export const DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES = 100_000;
/** Every limit counts per minute: fixed windows of this many seconds. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** What each limiter's keys start with in a shared backend (Redis, MongoDB), so they never mix. */
export const LIMITER_KEY_PREFIX = {
  perToken: 'token',
  authFailures: 'authfail',
  followMisses: 'followmiss',
} as const;
