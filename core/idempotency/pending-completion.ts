import type { LinkCompletion } from '../ports/link-store';

/**
 * A keyed create's answer waiting to be recorded. The idempotency stage makes it; the link stage
 * hands it to the store, which writes the link and the answer in one (LinkStore.insertCompleting)
 * only while the request still holds its claim.
 */
export type PendingCompletion = LinkCompletion;

/**
 * The link stage's report that the store wrote nothing because the request's claim on its key
 * was taken over (its lease ran out while it was paused or slow, and a retry claimed the key).
 * Not a ShortlinkError: the idempotency stage catches it and answers as a retry would.
 */
export class ClaimLostError extends Error {
  constructor() {
    super('the idempotency claim was taken over by another request; nothing was stored');
    this.name = 'ClaimLostError';
  }
}

const PENDING: unique symbol = Symbol('pending idempotent answer');

/**
 * The call's context with `completion` in it. It travels in the context of this one call (every
 * later stage spreads the context it is given), never in the request, which an embedder's caller
 * shares between its calls. Read with pendingCompletionOf: the stages in between narrow the
 * context to their own types, which do not name it.
 */
export function withPendingCompletion<T extends object>(
  ctx: T,
  completion: PendingCompletion,
): T & { [PENDING]: PendingCompletion } {
  return { ...ctx, [PENDING]: completion };
}

export function pendingCompletionOf(ctx: object): PendingCompletion | undefined {
  return (ctx as { [PENDING]?: PendingCompletion })[PENDING];
}
