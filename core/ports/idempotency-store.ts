/**
 * Retry-safe creation: what a request sent under an idempotency key leaves behind, so a retry
 * with the same key is answered from the record instead of running again.
 */

/** Keys belong to the token's user: the same key of two users names two records. */
export interface IdempotencyScope {
  userId: string;
  key: string;
}

/** The answer of a completed request, replayed unchanged. */
export interface RecordedOutcome {
  /** The contract's code: 0 for a success, else the error code. */
  code: number;
  /** JSON text: the created link for code 0, the list of error messages otherwise. */
  body: string;
}

interface RecordBase {
  /** What the request meant (a hash); a retry must mean the same. */
  fingerprint: string;
  /** Running: the end of the lease. Completed: the end of the record's life. */
  expiresAt: Date;
}

export interface RunningRecord extends RecordBase {
  state: 'running';
  /** Names the one claim that may complete or release this record (random per request). */
  owner: string;
}

export interface CompletedRecord extends RecordBase {
  state: 'completed';
  outcome: RecordedOutcome;
}

export type IdempotencyRecord = RunningRecord | CompletedRecord;

/** A live record is one whose `expiresAt` lies after `now`; an expired one counts as absent. */
export type ClaimResult = { claimed: true } | { claimed: false; existing: IdempotencyRecord };

export interface IdempotencyStore {
  /**
   * Atomically, across every process sharing the store: when no live record holds `scope`,
   * writes `running` (replacing an expired record) and answers claimed; otherwise writes nothing
   * and answers the live record.
   */
  claim(scope: IdempotencyScope, running: RunningRecord, now: Date): Promise<ClaimResult>;
  /**
   * Replaces the running record of `owner` with `completed`. Does nothing when the record is no
   * longer that claim's (its lease ran out and another request claimed the key).
   */
  complete(scope: IdempotencyScope, owner: string, completed: CompletedRecord): Promise<void>;
  /** Deletes the running record of `owner` (a retry then runs again); same ownership rule. */
  release(scope: IdempotencyScope, owner: string): Promise<void>;
  /**
   * Extends the lease of `owner`'s running record to `expiresAt` (never shortens it), so a retry
   * keeps answering IDEMPOTENCY_KEY_IN_USE while the request runs, however long it takes. Answers
   * whether the record is still that claim's; does nothing when it is not.
   */
  renew(scope: IdempotencyScope, owner: string, expiresAt: Date): Promise<boolean>;
}
