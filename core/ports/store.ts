import type { IdempotencyStore } from './idempotency-store';
import type { IdentityStore } from './identity-store';
import type { LinkStore } from './link-store';

/** Which identity lookups a change may affect; 'all' when changes may have been missed. */
export type IdentityChange = 'tokens' | 'organizations' | 'memberships' | 'groups' | 'all';

export interface IdentityWatch {
  close(): Promise<void>;
  /**
   * Reports identity changes made by any process, where the backend can tell (MongoDB change
   * streams on a replica set). Absent, or silent, where it cannot: caches then rely on their TTL.
   */
  watchIdentityChanges?(listener: (change: IdentityChange) => void): IdentityWatch;
}

/** Everything that keeps state, from one backend (the embedded memory store, or MongoDB). */
export interface Store {
  readonly kind: string;
  readonly identities: IdentityStore;
  /** Links; the link store also assigns their ids. */
  readonly links: LinkStore;
  /** Idempotency-key records (retry-safe creation). */
  readonly idempotency: IdempotencyStore;
  /** Resolves when the backend answers; rejects (BackendUnavailableError) otherwise. */
  ping(): Promise<void>;
  /**
   * Resolves once every write this process made before the call would survive a power loss;
   * rejects (BackendUnavailableError) when the backend cannot confirm it in time. Stores whose
   * writes are durable when they answer (memory has nothing to lose to a crash it does not
   * survive anyway; MongoDB answers per its write concern) resolve at once. A create calls it
   * once, before it answers, so one disk sync covers all of its writes (link and record).
   */
  flush(): Promise<void>;
  close(): Promise<void>;
  /**
   * Reports identity changes made by any process, where the backend can tell (MongoDB change
   * streams on a replica set). Absent, or silent, where it cannot: caches then rely on their TTL.
   */
  watchIdentityChanges?(listener: (change: IdentityChange) => void): IdentityWatch;
}
