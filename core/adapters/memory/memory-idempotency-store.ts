import type * as ports from '../../ports/idempotency-store';

/** How often, at most, a claim also removes every expired record (keeps memory bounded). */
const MEMORY_SWEEP_INTERVAL_MS = 60_000;

// Keys are 0x21-0x7E only, so a space cannot occur in one and the pair is unambiguous.
const scopeKey = ({ userId, key }: ports.IdempotencyScope) => `${key} ${userId}`;

/**
 * Idempotency records in this process. A claim is atomic because the check and the write share
 * one tick. Expired records are swept by claims (at most once a minute, by the caller's clock,
 * so an injected clock drives it too) rather than by a timer that would keep the process alive.
 */
export class MemoryIdempotencyStore implements ports.IdempotencyStore {
  private readonly records = new Map<string, ports.IdempotencyRecord>();
  private lastSweep = Number.NEGATIVE_INFINITY;

  claim(
    scope: ports.IdempotencyScope,
    running: ports.RunningRecord,
    now: Date,
  ): Promise<ports.ClaimResult> {
    this.sweepIfDue(now);
    const key = scopeKey(scope);
    const existing = this.records.get(key);
    if (existing && existing.expiresAt > now) {
      return Promise.resolve({ claimed: false, existing: copy(existing) });
    }
    this.records.set(key, copy(running));
    return Promise.resolve({ claimed: true });
  }

  complete(
    scope: ports.IdempotencyScope,
    owner: string,
    completed: ports.CompletedRecord,
  ): Promise<void> {
    this.completeNow(scope, owner, completed);
    return Promise.resolve();
  }

  release(scope: ports.IdempotencyScope, owner: string): Promise<void> {
    const key = scopeKey(scope);
    if (this.isOwnedBy(key, owner)) this.records.delete(key);
    return Promise.resolve();
  }

  renew(scope: ports.IdempotencyScope, owner: string, expiresAt: Date): Promise<boolean> {
    const record = this.records.get(scopeKey(scope));
    if (record?.state !== 'running' || record.owner !== owner) return Promise.resolve(false);
    if (expiresAt > record.expiresAt) record.expiresAt = new Date(expiresAt.getTime());
    return Promise.resolve(true);
  }

  /**
   * Synchronously, for the link store's keyed insert (which shares this tick): whether `scope`'s
   * running claim is `owner`'s, expired or not (a claim by another request would have replaced it).
   */
  ownsClaim(scope: ports.IdempotencyScope, owner: string): boolean {
    return this.isOwnedBy(scopeKey(scope), owner);
  }

  /** Synchronously: `complete`, for the link store's keyed insert. */
  completeNow(scope: ports.IdempotencyScope, owner: string, completed: ports.CompletedRecord) {
    const key = scopeKey(scope);
    if (this.isOwnedBy(key, owner)) this.records.set(key, copy(completed));
  }

  /** Removes every record expired at `now`. */
  sweep(now: Date): void {
    this.lastSweep = now.getTime();
    for (const [key, record] of this.records) {
      if (record.expiresAt <= now) this.records.delete(key);
    }
  }

  /** Records held, expired ones not yet swept included (for tests). */
  get size(): number {
    return this.records.size;
  }

  private sweepIfDue(now: Date): void {
    if (now.getTime() - this.lastSweep >= MEMORY_SWEEP_INTERVAL_MS) this.sweep(now);
  }

  private isOwnedBy(key: string, owner: string): boolean {
    const record = this.records.get(key);
    return record?.state === 'running' && record.owner === owner;
  }
}

function copy<T extends ports.IdempotencyRecord>(record: T): T {
  const expiresAt = new Date(record.expiresAt.getTime());
  return record.state === 'completed'
    ? { ...record, expiresAt, outcome: { ...record.outcome } }
    : { ...record, expiresAt };
}
