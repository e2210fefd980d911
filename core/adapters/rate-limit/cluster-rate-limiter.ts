import { BackendUnavailableError } from '../../errors/shortlink-error';
import type { RateLimitDecision, RateLimiter } from '../../ports/rate-limiter';
import { RATE_LIMIT_WINDOW_SECONDS } from '../../rate-limit/limits';
import { processLimitsClient, type ClusterLimitsClient } from './cluster/cluster-limits-client';
import type { LimiterOptions } from './flexible-rate-limiter';

export { holdClusterRateLimits } from './cluster/cluster-limits-primary';

/**
 * A limiter for a cluster worker whose counters live in the primary process (asked over the
 * cluster's IPC channel, batched per event-loop turn), so every worker counts against one budget
 * per key: one token's 60 per minute hold exactly however the requests spread. The primary must
 * hold the counters (`holdClusterRateLimits`). A primary that does not answer in time makes the
 * call fail as a backend outage (BACKEND_UNAVAILABLE), never an unlimited pass.
 */
export function createClusterRateLimiter(
  /** `maxKeys`: the primary holds at most this many keys of the budget (client addresses). */
  options: LimiterOptions & { maxKeys?: number },
  client: ClusterLimitsClient = processLimitsClient(),
): RateLimiter {
  const windowSeconds = options.windowSeconds ?? RATE_LIMIT_WINDOW_SECONDS;
  const ask = (op: 'consume' | 'peek', key: string) =>
    client.call({
      prefix: options.keyPrefix,
      limit: options.limit,
      windowSeconds,
      op,
      key,
      maxKeys: options.maxKeys, // absent from the message when undefined (JSON)
    });
  return {
    limit: options.limit,
    windowSeconds,
    consume: async (key): Promise<RateLimitDecision> => {
      const decision = await ask('consume', key);
      if (decision === null) {
        throw new BackendUnavailableError('cluster rate limits unavailable: no decision');
      }
      return decision;
    },
    peek: (key) => ask('peek', key),
  };
}
