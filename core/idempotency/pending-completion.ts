import type { RequestContext } from '../context';
import type { LinkCompletion } from '../ports/link-store';

/**
 * A keyed create's answer waiting to be recorded. The idempotency stage makes it; the link stage
 * hands it to a store that writes the link and the answer in one (LinkStore.insertCompleting) and
 * marks it recorded; otherwise the idempotency stage records the answer after the link.
 */
export interface PendingCompletion extends LinkCompletion {
  recorded: boolean;
}

/** Kept per request, so the stages between the two need not carry it in their context types. */
const pending = new WeakMap<RequestContext, PendingCompletion>();

export function setPendingCompletion(request: RequestContext, completion: PendingCompletion): void {
  pending.set(request, completion);
}

export function pendingCompletionOf(request: RequestContext): PendingCompletion | undefined {
  return pending.get(request);
}
