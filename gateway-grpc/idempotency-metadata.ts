import type { Metadata } from '@grpc/grpc-js';
import { idempotencyFields, type ResponseInfo } from '../core';

/** The `idempotency-key` request metadata (gRPC keys are lower-case). */
export const IDEMPOTENCY_KEY_METADATA = 'idempotency-key';

/**
 * The idempotency key as the core expects it: undefined when absent. A repeated key is joined
 * with ", " as HTTP joins repeated headers, so it is malformed (code 27) rather than guessed at.
 */
export function idempotencyKeyOf(metadata: Metadata): string | undefined {
  const values = metadata.get(IDEMPOTENCY_KEY_METADATA);
  if (values.length === 0) return undefined;
  return values
    .map((value) => (typeof value === 'string' ? value : value.toString('latin1')))
    .join(', ');
}

/** `idempotent-replayed: true` in the trailers of a replayed answer. */
export function setIdempotencyMetadata(metadata: Metadata, info: ResponseInfo): void {
  for (const [name, value] of idempotencyFields(info)) metadata.set(name.toLowerCase(), value);
}
