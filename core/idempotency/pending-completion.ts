import type { LinkCompletion } from '../ports/link-store';

/**
 * A keyed create's answer waiting to be recorded. The idempotency stage makes it; the link stage
 * hands it to a store that writes the link and the answer in one (LinkStore.insertCompleting) and
 * marks it recorded; otherwise the idempotency stage records the answer after the link.
 */
export interface PendingCompletion extends LinkCompletion {
  recorded: boolean;
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
