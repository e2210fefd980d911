import type { Metadata } from '@grpc/grpc-js';
import { idempotencyFields, type ResponseInfo } from '../core';

/** The `idempotency-key` request metadata (gRPC keys are lower-case). */
export const IDEMPOTENCY_KEY_METADATA = 'idempotency-key';

/**
 * The idempotency key as the core expects it: undefined when absent, every value when it came
 * more than once (the core refuses that, code 27).
 */
export function idempotencyKeyOf(metadata: Metadata): string | readonly string[] | undefined {
  const values = metadata
    .get(IDEMPOTENCY_KEY_METADATA)
    .map((value) => (typeof value === 'string' ? value : value.toString('latin1')));
  return values.length <= 1 ? values[0] : values;
}

/** `idempotent-replayed: true` in the trailers of a replayed answer. */
export function setIdempotencyMetadata(metadata: Metadata, info: ResponseInfo): void {
  for (const [name, value] of idempotencyFields(info)) metadata.set(name.toLowerCase(), value);
}
