import { RateLimiterCluster, RateLimiterClusterMaster } from 'rate-limiter-flexible';
import { FlexibleRateLimiter, flexibleOptions, type LimiterOptions } from './flexible-rate-limiter';

/**
 * A limiter for a cluster worker whose counters live in the primary process (asked over the
 * cluster's IPC channel), so every worker counts against one budget per key: one token's 60 per
 * minute hold exactly however the requests spread. The primary must hold the counters
 * (`holdClusterRateLimits`). A primary that does not answer within `timeoutMs` makes the call
 * fail as a backend outage (code 23), never an unlimited pass.
 */
export function createClusterRateLimiter(
  options: LimiterOptions & { timeoutMs?: number },
): FlexibleRateLimiter {
  return new FlexibleRateLimiter(
    new RateLimiterCluster({ ...flexibleOptions(options), timeoutMs: options.timeoutMs ?? 5000 }),
  );
}

/**
 * In the cluster's primary: holds the counters of every worker's cluster limiters, in memory, for
 * as long as the primary runs (a restarted worker finds its budgets where it left them).
 */
export function holdClusterRateLimits(): void {
  // The constructor registers the primary's IPC listener; the library keeps the one instance.
  new RateLimiterClusterMaster();
}
