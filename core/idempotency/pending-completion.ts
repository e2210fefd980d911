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
