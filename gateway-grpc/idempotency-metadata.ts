import type { Metadata } from '@grpc/grpc-js';
import { idempotencyFields, type ResponseInfo } from '../core';

/** The `idempotency-key` request metadata (gRPC keys are lower-case). */
export const IDEMPOTENCY_KEY_METADATA = 'idempotency-key';

/**
 * Every value of the idempotency key, as the core takes it: none means no key, one is the key,
 * more are refused (IDEMPOTENCY_KEY_INVALID).
 */
export function idempotencyKeyOf(metadata: Metadata): readonly string[] {
  return metadata
    .get(IDEMPOTENCY_KEY_METADATA)
    .map((value) => (typeof value === 'string' ? value : value.toString('latin1')));
}

/** `idempotent-replayed: true` in the trailers of a replayed answer. */
export function setIdempotencyMetadata(metadata: Metadata, info: ResponseInfo): void {
  for (const [name, value] of idempotencyFields(info)) metadata.set(name.toLowerCase(), value);
}
