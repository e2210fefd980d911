/** The rate limits' defaults and names, defined once for the core, the configuration and every adapter. */

/** Requests per token per window (RATE_LIMIT_PER_MINUTE). */
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 60;
/** Failed token checks per client address per window (AUTH_FAILURES_PER_MINUTE). */
export const DEFAULT_AUTH_FAILURES_PER_MINUTE = 30;
/** Client addresses the in-memory auth-failure limiter tracks at most (about 20 MB). */
export const DEFAULT_AUTH_FAILURE_TRACKED_ADDRESSES = 100_000;
/** Both limits count per minute: fixed windows of this many seconds. */
export const RATE_LIMIT_WINDOW_SECONDS = 60;

/** What each limiter's keys start with in a shared backend (Redis, MongoDB), so the two never mix. */
export const LIMITER_KEY_PREFIX = {
  perToken: 'token',
  authFailures: 'authfail',
} as const;
