import type { IdempotencyStore } from './idempotency-store';
import type { IdentityStore } from './identity-store';
import type { LinkStore } from './link-store';
import type { VisitStore } from './visit-store';

/** A kind of identity lookup a change may affect. */
export type IdentityKind = 'tokens' | 'organizations' | 'memberships' | 'groups';

/**
 * One organization changed (or was added or removed): what is cached of it, by id and by key
 * hash, must go. `keyHash` is its key hash as it now is, when the backend knows it; a former key
 * hash (a rotation) is found from the cached organization's id.
 */
export interface OrganizationChanged {
  kind: 'organization';
  id: string;
  keyHash?: string;
}

/** One token changed (added or removed): its lookup by hash must go. */
export interface TokenChanged {
  kind: 'token';
  tokenHash: string;
}

/** One membership changed (added or removed): its lookup must go. */
export interface MembershipChanged {
  kind: 'membership';
  userId: string;
  organizationId: string;
}

/** One URL group changed (added, renamed or removed): its lookup must go. */
export interface GroupChanged {
  kind: 'group';
  organizationId: string;
  apiId: string;
}

/**
 * What an identity change may affect: one organization, token, membership or group (by the key
 * it is looked up by); a whole kind of lookup, when the backend cannot tell which one; or 'all'
 * when changes may have been missed.
 */
export type IdentityChange =
  OrganizationChanged | TokenChanged | MembershipChanged | GroupChanged | IdentityKind | 'all';

/**
 * A link whose stored state changed (a disable, an enable), by the key it is followed by; 'all'
 * when changes may have been missed.
 */
export type LinkChange = { domain: string; alias: string } | 'all';

/**
 * How a watch on the backend's changes is doing: `open` (a stream follows changes), `failed`
 * (waiting to reopen one), `unavailable` (none is possible: the caches rely on their TTLs).
 * `lagSeconds`: how far behind the server the last change was heard (from the change's own time).
 * `positionAt`: the server's time (epoch ms) up to which every change has been heard, when the
 * watch can tell (its last change's time, or the time of a resume token the server handed out
 * after a quiet batch): a watch whose position keeps up with the clock is advancing.
 */
export interface ChangeWatchStatus {
  state: 'open' | 'failed' | 'unavailable';
  lagSeconds?: number;
  positionAt?: number;
}

/** A running watch of the backend's changes; close() stops it. */
export interface ChangeWatch {
  close(): Promise<void>;
  /** Optional: a watch that cannot tell says nothing. */
  status?(): ChangeWatchStatus;
}

export type IdentityWatch = ChangeWatch;

/** Everything that keeps state, from one backend (the embedded memory store, or MongoDB). */
export interface Store {
  readonly kind: string;
  readonly identities: IdentityStore;
  /** Links; the link store also assigns their ids. */
  readonly links: LinkStore;
  /** Idempotency-key records (retry-safe creation). */
  readonly idempotency: IdempotencyStore;
  /**
   * Redirects counted per link and UTC day (core/visits/). Optional, so a store written before
   * visits were counted still serves: without one, nothing is counted and every count reads 0.
   */
  readonly visits?: VisitStore;
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
  watchIdentityChanges?(listener: (change: IdentityChange) => void): ChangeWatch;
  /**
   * Reports changes of links' state made by any process, as watchIdentityChanges does for
   * identities; absent, or silent, where the backend cannot tell: the link cache then relies on
   * its TTL (CHANGE_PROPAGATION_SECONDS).
   */
  watchLinkChanges?(listener: (change: LinkChange) => void): ChangeWatch;
}
