import type { Metadata } from '@grpc/grpc-js';
import { rateLimitFields, type ResponseInfo } from '../core';

/**
 * The contract's rate-limit fields as gRPC trailing metadata, lower-case as gRPC requires:
 * `x-ratelimit-limit`, `x-ratelimit-remaining`, `x-ratelimit-reset` (Unix seconds),
 * `ratelimit-policy`, `ratelimit`, and `retry-after` (seconds) on a refusal.
 */
export function setRateLimitMetadata(
  metadata: Metadata,
  info: ResponseInfo,
  now = Date.now(),
): void {
  for (const [name, value] of rateLimitFields(info, now)) {
    metadata.set(name.toLowerCase(), value);
  }
}
