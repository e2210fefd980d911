import type * as ports from '../../ports/idempotency-store';
import type {
  ExpiryKey,
  IdempotencyKey,
  LmdbDatabases,
  StoredCompletedRecord,
  StoredIdempotencyRecord,
  StoredRunningRecord,
} from './databases';
import { silentLogger, type Logger } from '../../ports/logger';
import { messageOf } from '../../errors/message-of';
import { onLmdb } from './lmdb-errors';

/** How often, at most, a claim starts removing expired records (by the caller's clock). */
const LMDB_SWEEP_INTERVAL_MS = 60_000;
/** Records examined per write transaction, so a sweep never holds the writer lock long. */
const SWEEP_BATCH = 1000;

const keyOf = ({ userId, key }: ports.IdempotencyScope): IdempotencyKey => [key, userId];
const expiryOf = ([key, userId]: IdempotencyKey, expiresAtMs: number): ExpiryKey => [
  expiresAtMs,
  key,
  userId,
];

function toStoredRunning(record: ports.RunningRecord): StoredRunningRecord {
  return ['running', record.fingerprint, record.expiresAt.getTime(), record.owner];
}

function toStoredCompleted(record: ports.CompletedRecord): StoredCompletedRecord {
  const { fingerprint, expiresAt, outcome } = record;
  return ['completed', fingerprint, expiresAt.getTime(), outcome.code, outcome.body];
}

/** Whether a record holds its key at `nowMs` (is live); an expired one counts as absent. */
function isLive<T extends StoredIdempotencyRecord>(
  stored: T | undefined,
  nowMs: number,
): stored is T {
  return stored !== undefined && stored[2] > nowMs;
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
 * Idempotency records on LMDB, in two databases: `idempotency_running` holds the claims of the
 * requests in flight, `idempotency` the completed records (with an expiry index for the sweep).
 * Each operation is one write transaction, and LMDB has one writer per environment across every
 * process that opens it, so a claim (read both, then write when neither holds a live record) is
 * atomic between processes. Claims live apart because of what a write costs: every page a
 * transaction changes is copied, written and synced, and a claim at a random key of the large
 * `idempotency` tree changed a page of its own; the running claims are few, so the claims of a
 * batch share a few pages. Every operation answers at commit; a keyed create waits for the fsync
 * once, after recording its answer (Store.flush), so the recorded answer is on disk, as its link
 * is, before the client sees it: a retry after a power loss replays rather than creating again.
 *
 * Expired records are read as absent, so removing them only reclaims space: at most once a minute
 * a claim, once committed, starts the sweep beside it; no request waits for the whole sweep.
 */
export class LmdbIdempotencyStore implements ports.IdempotencyStore {
  private lastSweep = Number.NEGATIVE_INFINITY;
  private sweeping: Promise<void> | undefined;
  private stopped = false;

  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
    private readonly logger: Logger = silentLogger,
  ) {}

  async claim(
    scope: ports.IdempotencyScope,
    running: ports.RunningRecord,
    now: Date,
  ): Promise<ports.ClaimResult> {
    const key = keyOf(scope);
    const { idempotency, idempotencyRunning } = this.dbs;
    const stored = toStoredRunning(running);
    const nowMs = now.getTime();
    // One write transaction reads the key and writes the claim when the key is free or expired.
    // lmdb-js runs every transaction callback queued for a batch in one call into this thread, so
    // claims share that call with the links being inserted; a conditional write (ifNoExists)
    // takes a commit promise of its own, and measured about 0.1 ms more CPU per keyed create.
    const result = await onLmdb(this.dbs, this.path, 'idempotency claim', () =>
      idempotencyRunning.transaction((): ports.ClaimResult => {
        // A completed record, or a claim of format 1 (kept in `idempotency`, honoured until its
        // lease ends), then a running claim.
        const existing = idempotency.get(key);
        if (isLive(existing, nowMs)) return { claimed: false, existing: fromStored(existing) };
        const claimed = idempotencyRunning.get(key);
        if (isLive(claimed, nowMs)) return { claimed: false, existing: fromStored(claimed) };
        // An expired claim is replaced; an expired completed record stays until the sweep or
        // this claim's completion replaces it.
        void idempotencyRunning.put(key, stored);
        return { claimed: true };
      }),
    );
    // After the claim's commit, so that the claim does not share its batch with the sweep's first
    // transaction (other writes may share a batch with one of them: at most SWEEP_BATCH records).
    this.startSweepIfDue(now);
    return result;
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

  renew(scope: ports.IdempotencyScope, owner: string, expiresAt: Date): Promise<boolean> {
    const key = keyOf(scope);
    const { idempotencyRunning } = this.dbs;
    return onLmdb(this.dbs, this.path, 'idempotency lease renewal', () =>
      idempotencyRunning.transaction(() => {
        const claimed = idempotencyRunning.get(key);
        if (claimed?.[0] !== 'running' || claimed[3] !== owner) return false;
        const expiresAtMs = expiresAt.getTime();
        if (expiresAtMs > claimed[2]) {
          void idempotencyRunning.put(key, ['running', claimed[1], expiresAtMs, owner]);
        }
        return true;
      }),
    );
  }

  /**
   * Removes every record expired at `now`: the completed records whose expiry entries are due
   * (in batches, by the index; an entry due may be stale when the record was written again with
   * a later expiry, and then only the entry goes), and the claims whose lease has ended (a scan:
   * the running claims are few).
   */
  async sweep(now: Date): Promise<void> {
    const nowMs = now.getTime();
    this.lastSweep = nowMs;
    await this.sweepCompleted(nowMs);
    await this.sweepLeases(nowMs);
  }

  /** Records held, completed and running, expired ones not yet swept included (tests). */
  count(): number {
    return this.dbs.idempotency.getCount() + this.dbs.idempotencyRunning.getCount();
  }

  private async sweepCompleted(nowMs: number): Promise<void> {
    const { idempotency, idempotencyExpiry } = this.dbs;
    const end: ExpiryKey = [nowMs + 1, '', ''];
    let examined = SWEEP_BATCH;
    while (examined === SWEEP_BATCH && !this.stopped) {
      examined = await onLmdb(this.dbs, this.path, 'idempotency sweep', () =>
        idempotency.transaction(() => {
          let count = 0;
          for (const { key: expiry } of idempotencyExpiry.getRange({ end, limit: SWEEP_BATCH })) {
            const [, key, userId] = expiry;
            const record = idempotency.get([key, userId]);
            if (record && !isLive(record, nowMs)) void idempotency.remove([key, userId]);
            void idempotencyExpiry.remove(expiry);
            count += 1;
          }
          return count;
        }),
      );
    }
  }

  private async sweepLeases(nowMs: number): Promise<void> {
    const { idempotencyRunning } = this.dbs;
    let start: IdempotencyKey | undefined;
    while (!this.stopped) {
      const page = await onLmdb(this.dbs, this.path, 'idempotency lease sweep', () =>
        idempotencyRunning.transaction(() => {
          let examined = 0;
          let last: IdempotencyKey | undefined;
          for (const { key, value } of idempotencyRunning.getRange({ start, limit: SWEEP_BATCH })) {
            if (!isLive(value, nowMs)) void idempotencyRunning.remove(key);
            last = key;
            examined += 1;
          }
          return { examined, last };
        }),
      );
      if (page.examined < SWEEP_BATCH) return;
      // The next page starts at the last key seen (looked at twice, harmlessly).
      start = page.last;
    }
  }

  /** Resolves once the sweep in progress, if any, has ended. */
  idle(): Promise<void> {
    return this.sweeping ?? Promise.resolve();
  }

  /**
   * Starts no more sweeps, and ends the one in progress after its current transaction, which
   * closing the environment waits for (with its bound): a sweep never begins a transaction on a
   * closed environment.
   */
  stopSweeping(): void {
    this.stopped = true;
  }

  /**
   * Starts a sweep when one is due and none is running. A sweep that fails (a full disk) is
   * logged and tried again at the next due claim; the claim itself goes on.
   */
  private startSweepIfDue(now: Date): void {
    if (this.sweeping || this.stopped || now.getTime() - this.lastSweep < LMDB_SWEEP_INTERVAL_MS)
      return;
    this.sweeping = this.sweep(now)
      .catch((error: unknown) => {
        try {
          this.logger.warn(
            { dataDir: this.path, error: messageOf(error) },
            'idempotency sweep failed; expired records stay until the next sweep',
          );
        } catch {
          // A logger that throws must not turn into an unhandled rejection (nothing awaits this).
        }
      })
      .finally(() => {
        this.sweeping = undefined;
      });
  }

  /** Completes (or, with null, releases) the claim when it is still `owner`'s. */
  private replaceOwned(
    scope: ports.IdempotencyScope,
    owner: string,
    operation: string,
    next: ports.CompletedRecord | null,
  ): Promise<void> {
    return onLmdb(this.dbs, this.path, operation, () =>
      this.dbs.idempotency.transaction(() => replaceOwnedRecord(this.dbs, scope, owner, next)),
    );
  }
}

/**
 * Inside a write transaction: whether `scope`'s running claim is `owner`'s, its lease over or not
 * (a claim by another request would have replaced it).
 */
export function ownsClaim(dbs: LmdbDatabases, scope: ports.IdempotencyScope, owner: string) {
  return dbs.idempotencyRunning.get(keyOf(scope))?.[3] === owner;
}

/**
 * Inside a write transaction: when `scope`'s running claim is still `owner`'s, removes it and,
 * unless `next` is null, writes the completed record with its expiry index entry.
 */
export function replaceOwnedRecord(
  dbs: LmdbDatabases,
  scope: ports.IdempotencyScope,
  owner: string,
  next: ports.CompletedRecord | null,
): void {
  const key = keyOf(scope);
  const { idempotency, idempotencyExpiry, idempotencyRunning } = dbs;
  const claimed = idempotencyRunning.get(key);
  if (!claimed || claimed[3] !== owner) return;
  // Made before the first write: lmdb-js's transaction() keeps what a callback wrote before it
  // threw (no rollback).
  const stored = next && toStoredCompleted(next);
  void idempotencyRunning.remove(key);
  if (stored === null) return;
  void idempotency.put(key, stored);
  void idempotencyExpiry.put(expiryOf(key, stored[2]), true);
}
