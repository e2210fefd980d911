import type { Metadata } from '@grpc/grpc-js';
import type { ResponseInfo } from '../core';

/**
 * The REST gateway's rate-limit headers as gRPC trailing metadata (lower-case, as gRPC requires):
 * `x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset` (Unix seconds), the IETF
 * draft's `ratelimit-policy` and `ratelimit`, and `retry-after` (seconds) on a refusal.
 */
export function setRateLimitMetadata(
  metadata: Metadata,
  info: ResponseInfo,
  windowSeconds: number,
  now = Date.now(),
): void {
  const state = info.rateLimit;
  if (state) {
    const seconds = Math.max(0, Math.ceil((state.resetAt - now) / 1000));
    metadata.set('x-ratelimit-limit', String(state.limit));
    metadata.set('x-ratelimit-remaining', String(state.remaining));
    metadata.set('x-ratelimit-reset', String(Math.ceil(state.resetAt / 1000)));
    metadata.set('ratelimit-policy', `"default";q=${state.limit};w=${windowSeconds}`);
    metadata.set('ratelimit', `"default";r=${state.remaining};t=${seconds}`);
  }
  if (info.retryAfterSeconds !== undefined) {
    metadata.set('retry-after', String(info.retryAfterSeconds));
  }
}
