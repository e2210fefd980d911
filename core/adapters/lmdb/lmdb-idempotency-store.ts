import type * as ports from '../../ports/idempotency-store';
import type {
  ExpiryKey,
  IdempotencyKey,
  LmdbDatabases,
  StoredIdempotencyRecord,
} from './databases';
import { onLmdb } from './lmdb-errors';

/** How often, at most, a claim first removes expired records (by the caller's clock). */
export const LMDB_SWEEP_INTERVAL_MS = 60_000;
/** Expired records removed per write transaction, so a sweep never holds the writer lock long. */
const SWEEP_BATCH = 1000;

const keyOf = ({ userId, key }: ports.IdempotencyScope): IdempotencyKey => [key, userId];
const expiryOf = ([key, userId]: IdempotencyKey, expiresAtMs: number): ExpiryKey => [
  expiresAtMs,
  key,
  userId,
];

function toStored(record: ports.IdempotencyRecord): StoredIdempotencyRecord {
  const expiresAtMs = record.expiresAt.getTime();
  return record.state === 'running'
    ? ['running', record.fingerprint, expiresAtMs, record.owner]
    : ['completed', record.fingerprint, expiresAtMs, record.outcome.code, record.outcome.body];
}

function fromStored(stored: StoredIdempotencyRecord): ports.IdempotencyRecord {
  if (stored[0] === 'running') {
    const [, fingerprint, expiresAtMs, owner] = stored;
    return { state: 'running', owner, fingerprint, expiresAt: new Date(expiresAtMs) };
  }
  const [, fingerprint, expiresAtMs, code, body] = stored;
  return {
    state: 'completed',
    fingerprint,
    expiresAt: new Date(expiresAtMs),
    outcome: { code, body },
  };
}

/**
 * Idempotency records on LMDB. Each operation is one write transaction, and LMDB has one writer
 * per environment across every process that opens it, so a claim (read, then write when absent
 * or expired) is atomic between processes. An expiry index ([expiresAt, key, user]) lets a sweep
 * find expired records without a scan: every record written gets an entry at its expiry, and a
 * completion or release removes its claim's. Every operation answers at commit; a
 * keyed create waits for the fsync once, after recording its answer (Store.flush), so the
 * recorded answer is on disk, as its link is, before the client sees it: a retry after a power
 * loss replays rather than creating again.
 */
export class LmdbIdempotencyStore implements ports.IdempotencyStore {
  private lastSweep = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
  ) {}

  async claim(
    scope: ports.IdempotencyScope,
    running: ports.RunningRecord,
    now: Date,
  ): Promise<ports.ClaimResult> {
    await this.sweepIfDue(now);
    const key = keyOf(scope);
    const { idempotency } = this.dbs;
    const stored = toStored(running);
    // One write transaction reads the key and writes the claim when the key is free or expired.
    // lmdb-js runs every transaction callback queued for a batch in one call into this thread, so
    // claims share that call with the links being inserted; a conditional write (ifNoExists)
    // takes a commit promise of its own, and measured about 0.1 ms more CPU per keyed create.
    return onLmdb(this.path, 'idempotency claim', () =>
      idempotency.transaction((): ports.ClaimResult => {
        const existing = idempotency.get(key);
        if (existing && existing[2] > now.getTime()) {
          return { claimed: false, existing: fromStored(existing) };
        }
        // An expired record's expiry entry stays: the sweep skips entries a record outlived.
        putRecord(this.dbs, key, stored);
        return { claimed: true };
      }),
    );
  }

  complete(
    scope: ports.IdempotencyScope,
    owner: string,
    completed: ports.CompletedRecord,
  ): Promise<void> {
    return this.replaceOwned(scope, owner, 'idempotency completion', completed);
  }

  release(scope: ports.IdempotencyScope, owner: string): Promise<void> {
    return this.replaceOwned(scope, owner, 'idempotency release', null);
  }

  /**
   * Removes every record expired at `now`, in batches, and drops the entries due. An entry due
   * may be stale (a claim replaced an expired record and left its entry): its record, not yet
   * expired, stays; it has an entry of its own.
   */
  async sweep(now: Date): Promise<void> {
    const nowMs = now.getTime();
    this.lastSweep = nowMs;
    const { idempotency, idempotencyExpiry } = this.dbs;
    const end: ExpiryKey = [nowMs + 1, '', ''];
    let removed = SWEEP_BATCH;
    while (removed === SWEEP_BATCH) {
      removed = await onLmdb(this.path, 'idempotency sweep', () =>
        idempotency.transaction(() => {
          let count = 0;
          for (const { key: expiry } of idempotencyExpiry.getRange({ end, limit: SWEEP_BATCH })) {
            const [, key, userId] = expiry;
            const record = idempotency.get([key, userId]);
            if (record && record[2] <= nowMs) void idempotency.remove([key, userId]);
            void idempotencyExpiry.remove(expiry);
            count += 1;
          }
          return count;
        }),
      );
    }
  }

  /** Records held, expired ones not yet swept included (tests). */
  count(): number {
    return this.dbs.idempotency.getCount();
  }

  private sweepIfDue(now: Date): Promise<void> {
    return now.getTime() - this.lastSweep >= LMDB_SWEEP_INTERVAL_MS
      ? this.sweep(now)
      : Promise.resolve();
  }

  /** Replaces (or, with null, deletes) the record when it is still `owner`'s running one. */
  private replaceOwned(
    scope: ports.IdempotencyScope,
    owner: string,
    operation: string,
    next: ports.CompletedRecord | null,
  ): Promise<void> {
    return onLmdb(this.path, operation, () =>
      this.dbs.idempotency.transaction(() => replaceOwnedRecord(this.dbs, scope, owner, next)),
    );
  }
}

/**
 * Inside a write transaction: replaces (or, with null, deletes) `scope`'s record when it is still
 * `owner`'s running one, with its expiry index entry (the lease's goes, the record's own comes).
 */
export function replaceOwnedRecord(
  dbs: LmdbDatabases,
  scope: ports.IdempotencyScope,
  owner: string,
  next: ports.CompletedRecord | null,
): void {
  const key = keyOf(scope);
  const { idempotency, idempotencyExpiry } = dbs;
  const existing = idempotency.get(key);
  if (!existing || existing[0] !== 'running' || existing[3] !== owner) return;
  void idempotencyExpiry.remove(expiryOf(key, existing[2]));
  if (next === null) void idempotency.remove(key);
  else putRecord(dbs, key, toStored(next));
}

/** Writes a record and its expiry index entry (inside the caller's transaction). */
function putRecord(dbs: LmdbDatabases, key: IdempotencyKey, stored: StoredIdempotencyRecord): void {
  void dbs.idempotency.put(key, stored);
  void dbs.idempotencyExpiry.put(expiryOf(key, stored[2]), true);
}
