import type { Collection, WithId } from 'mongodb';
import type * as ports from '../../ports/idempotency-store';
import { asBackendError, isDuplicateKeyOn, onMongo } from './backend-errors';
import type { IdempotencyDocument, LinkDocument } from './documents';
import { ID_INDEX } from './indexes';
import { settlePending, type RunningWithPending } from './mongo-keyed-insert';

/** A claim retried this often when the record it lost to expired or vanished in between. */
const CLAIM_ATTEMPTS = 3;

// Keys are 0x21-0x7E only, so a space cannot occur in one and the pair is unambiguous.
export const idempotencyDocumentId = ({ userId, key }: ports.IdempotencyScope) =>
  `${key} ${userId}`;

function toRecord(document: WithId<IdempotencyDocument>): ports.IdempotencyRecord {
  const { fingerprint, expiresAt } = document;
  return document.state === 'running'
    ? { state: 'running', owner: document.owner, fingerprint, expiresAt }
    : {
        state: 'completed',
        fingerprint,
        expiresAt,
        outcome: { code: document.outcome.code, body: document.outcome.body },
      };
}

function hasPendingLink(document: IdempotencyDocument): document is RunningWithPending {
  return document.state === 'running' && document.pending !== undefined;
}

/**
 * Idempotency records on MongoDB. A claim is one upsert whose filter matches only an expired
 * record under the key: with no record it inserts, with an expired one it replaces it, and with
 * a live one the insert fails on the unique `_id` (E11000), so among any number of processes one
 * claim wins and the others read the winner's record.
 */
export class MongoIdempotencyStore implements ports.IdempotencyStore {
  constructor(
    private readonly records: Collection<IdempotencyDocument>,
    /** Where a pending link of a keyed create is finished (see mongo-keyed-insert.ts). */
    private readonly links: Collection<LinkDocument>,
  ) {}

  async claim(
    scope: ports.IdempotencyScope,
    running: ports.RunningRecord,
    now: Date,
  ): Promise<ports.ClaimResult> {
    const _id = idempotencyDocumentId(scope);
    for (let attempt = 0; attempt < CLAIM_ATTEMPTS; attempt += 1) {
      try {
        await this.records.replaceOne({ _id, expiresAt: { $lte: now } }, running, {
          upsert: true,
        });
        return { claimed: true };
      } catch (error) {
        if (!isDuplicateKeyOn(error, ID_INDEX)) throw asBackendError(error, 'idempotency claim');
      }
      const existing = await onMongo('idempotency lookup', () => this.records.findOne({ _id }));
      if (!existing || existing.expiresAt <= now) continue;
      if (!hasPendingLink(existing) || existing.fingerprint !== running.fingerprint) {
        return { claimed: false, existing: toRecord(existing) };
      }
      // The same request stopped, or is still, between its pending link and its answer: finish
      // it (or take the key over when it cannot finish), whatever its lease says.
      const settled = await settlePending(this.links, this.records, existing, running);
      if (settled) return settled;
    }
    throw new Error(`idempotency claim did not settle after ${CLAIM_ATTEMPTS} attempts`);
  }

  async complete(
    scope: ports.IdempotencyScope,
    owner: string,
    completed: ports.CompletedRecord,
  ): Promise<void> {
    const _id = idempotencyDocumentId(scope);
    await onMongo('idempotency completion', () =>
      this.records.replaceOne({ _id, state: 'running', owner }, completed),
    );
  }

  /**
   * A record holding a pending link stays: that link may have been inserted (a write whose answer
   * was lost), so the next claim finishes it rather than running the request again.
   */
  async release(scope: ports.IdempotencyScope, owner: string): Promise<void> {
    const _id = idempotencyDocumentId(scope);
    await onMongo('idempotency release', () =>
      this.records.deleteOne({ _id, state: 'running', owner, pending: { $exists: false } }),
    );
  }

  async renew(scope: ports.IdempotencyScope, owner: string, expiresAt: Date): Promise<boolean> {
    const _id = idempotencyDocumentId(scope);
    const renewed = await onMongo('idempotency lease renewal', () =>
      this.records.updateOne({ _id, state: 'running', owner }, { $max: { expiresAt } }),
    );
    return renewed.matchedCount === 1;
  }
}
