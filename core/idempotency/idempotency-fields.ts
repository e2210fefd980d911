import type { ResponseInfo } from '../context';

/** Marks a replayed answer (the IETF idempotency-key draft's convention, as Stripe sends it). */
export const IDEMPOTENT_REPLAYED_FIELD = 'Idempotent-Replayed';

/**
 * The idempotency fields of an answer, named as the contract names them: REST sends them as
 * headers, gRPC as (lower-case) trailing metadata.
 */
export function idempotencyFields(info: ResponseInfo): Array<[name: string, value: string]> {
  return info.idempotentReplayed ? [[IDEMPOTENT_REPLAYED_FIELD, 'true']] : [];
}
