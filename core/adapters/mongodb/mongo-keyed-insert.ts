import type { Collection } from 'mongodb';
import type * as ports from '../../ports/idempotency-store';
import type { LinkCompletion, LinkRecord } from '../../ports/link-store';
import { asBackendError, isDuplicateKeyOn, onMongo } from './backend-errors';
import type { IdempotencyDocument, LinkDocument, PendingLink } from './documents';
import { toLinkFields } from './link-document';
import { ID_INDEX, INDEXES } from './indexes';

/**
 * A keyed create on MongoDB, with no transaction (a standalone server has none): the link and its
 * idempotency record are two documents, so "insert the link only while the claim is the
 * request's" is made of conditional writes that no timing can split.
 *
 * 1. The running record, only while it is still the request's (`owner`), takes the link as its
 *    `pending` link, with the answer it will complete with, and the completed record's expiry
 *    (a running record with a pending link is never removed by the TTL monitor before its
 *    answer's life is over). Another claim cannot replace it from then on: it is live.
 * 2. The link is inserted, with the id it got in step 1.
 * 3. The record is completed, still only while it is the request's.
 *
 * A request whose claim was taken over fails step 1 and writes nothing. A request that stops
 * after step 1 (a crash, a pause, a lost answer) leaves the pending link to whoever claims the
 * key next: the claim inserts that very document (a second insert of it fails on its unique
 * alias and is recognised by its id, so the link is made once, by whichever comes first) and
 * completes the record, or, when another link holds the alias (the request would have failed
 * there too), takes the key over. One key therefore never makes two links.
 */

/** The filter of a running record that is `owner`'s, holding no pending link or `pendingId`'s. */
function ownedRunning(_id: string, owner: string, pendingId?: number) {
  return {
    _id,
    state: 'running' as const,
    owner,
    ...(pendingId === undefined ? {} : { 'pending.link._id': pendingId }),
  };
}

/**
 * Inserts `document` once: 'inserted' too when this very document is there already (a claim
 * finishing the request's insert came first), 'alias_taken' when another link holds its alias.
 */
async function insertLinkOnce(
  links: Collection<LinkDocument>,
  document: LinkDocument,
): Promise<'inserted' | 'alias_taken'> {
  try {
    await links.insertOne(document);
    return 'inserted';
  } catch (error) {
    const duplicate =
      isDuplicateKeyOn(error, INDEXES.linkAlias) || isDuplicateKeyOn(error, ID_INDEX);
    if (!duplicate) throw asBackendError(error, 'link insert');
  }
  const { domain, alias } = document;
  const holder = await onMongo('link lookup', () =>
    links.findOne({ domain, alias }, { projection: { _id: 1 } }),
  );
  if (holder?._id === document._id) return 'inserted';
  if (holder) return 'alias_taken';
  throw new Error(`link id ${document._id} is held by another link: is the id counter behind?`);
}

/**
 * The keyed insert (steps 1 to 3 above) of `record`, whose id was taken from the counter, for the
 * running record `recordId` of `completion.owner`.
 */
export async function insertKeyed(
  links: Collection<LinkDocument>,
  records: Collection<IdempotencyDocument>,
  recordId: string,
  record: LinkRecord,
  completion: LinkCompletion,
): Promise<LinkRecord | 'alias_taken' | 'claim_lost'> {
  const completed = completion.completed(record);
  const { id } = record;
  const document: LinkDocument = toLinkFields(record);
  const pending: PendingLink = { link: document, outcome: completed.outcome };
  const marked = await onMongo('idempotency pending link', () =>
    records.updateOne(ownedRunning(recordId, completion.owner), {
      $set: { pending, expiresAt: completed.expiresAt },
    }),
  );
  if (marked.matchedCount === 0) return 'claim_lost';
  // A taken alias leaves the pending link in the record: the request's next step (another
  // generated alias, or its recorded ALIAS_TAKEN) replaces it, and a claim meanwhile takes the key
  // over.
  if ((await insertLinkOnce(links, document)) === 'alias_taken') return 'alias_taken';
  // When a claim has finished the request meanwhile, the record is completed already, with the
  // same answer: this write then matches nothing.
  await onMongo('idempotency completion', () =>
    records.replaceOne(ownedRunning(recordId, completion.owner, id), completed),
  );
  return record;
}

export type RunningWithPending = ports.RunningRecord & { _id: string; pending: PendingLink };

/**
 * A claim that met a live running record holding a pending link, for the same request: finishes
 * that request's insert and answers its completed record, or, when another link holds the alias,
 * takes the key over with `running`. Undefined when the record changed in between (read it
 * again).
 */
export async function settlePending(
  links: Collection<LinkDocument>,
  records: Collection<IdempotencyDocument>,
  existing: RunningWithPending,
  running: ports.RunningRecord,
): Promise<ports.ClaimResult | undefined> {
  const { _id, owner, pending } = existing;
  const filter = ownedRunning(_id, owner, pending.link._id);
  if ((await insertLinkOnce(links, pending.link)) === 'alias_taken') {
    const takenOver = await onMongo('idempotency claim', () => records.replaceOne(filter, running));
    return takenOver.matchedCount === 1 ? { claimed: true } : undefined;
  }
  const completed: ports.CompletedRecord = {
    state: 'completed',
    fingerprint: existing.fingerprint,
    outcome: pending.outcome,
    expiresAt: existing.expiresAt,
  };
  const finished = await onMongo('idempotency completion', () =>
    records.replaceOne(filter, completed),
  );
  return finished.matchedCount === 1 ? { claimed: false, existing: completed } : undefined;
}
