import type { Collection, WithId } from 'mongodb';
import type * as ports from '../../ports/idempotency-store';
import { asBackendError, isDuplicateKeyOn, onMongo } from './backend-errors';
import type { IdempotencyDocument } from './documents';
import { ID_INDEX } from './indexes';

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

/**
 * Idempotency records on MongoDB. A claim is one upsert whose filter matches only an expired
 * record under the key: with no record it inserts, with an expired one it replaces it, and with
 * a live one the insert fails on the unique `_id` (E11000), so among any number of processes one
 * claim wins and the others read the winner's record.
 */
export class MongoIdempotencyStore implements ports.IdempotencyStore {
  constructor(private readonly records: Collection<IdempotencyDocument>) {}

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
      if (existing && existing.expiresAt > now)
        return { claimed: false, existing: toRecord(existing) };
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

  async release(scope: ports.IdempotencyScope, owner: string): Promise<void> {
    const _id = idempotencyDocumentId(scope);
    await onMongo('idempotency release', () =>
      this.records.deleteOne({ _id, state: 'running', owner }),
    );
  }
}
