import type { ObjectId } from 'mongodb';
import type {
  CompletedRecord,
  RecordedOutcome,
  RunningRecord,
} from '../../ports/idempotency-store';
import type { Organization, TokenRecord, UrlGroup, User } from '../../ports/identity-store';
import type { LinkDisabling, LinkHistoryEntry, LinkRecord } from '../../ports/link-store';

/**
 * What each collection holds: the ports' records, with the id as `_id` where it is the key.
 * Secrets appear only as SHA-256 hashes (the ports pass nothing else). These shapes stay inside
 * the adapter: the ports know nothing of MongoDB.
 */

/**
 * A link; its `_id` is the link id from the counter. `disabled` is there only while the link is
 * disabled (an enable `$unset`s it), so "active" is `{disabled: {$exists: false}}`; the other
 * optional fields too are there only when present. `revision` counts the link's changes (absent
 * before its first): each change is written only over the revision it read, and `lastChange`
 * holds its history entry in the same write, copied to `link_history` just after (see
 * mongo-link-changes.ts). link-document.ts maps every field.
 */
export type LinkDocument = Omit<LinkRecord, 'id' | 'disabled'> & {
  _id: number;
  disabled?: LinkDisabling;
  revision?: number;
  lastChange?: HistoryDocument;
};

/** One entry of a link's history; `_id` is the link's id and the entry's position (from 1). */
export type HistoryDocument = LinkHistoryEntry & { _id: { link: number; position: number } };

/** An organization; `_id` is its id, the secret key only as `keyHash`. */
export type OrganizationDocument = Omit<Organization, 'id'> & { _id: string };

/**
 * The `_id` of identity documents written by this version: the key their lookup is cached under,
 * so that a change stream's deletion event (which carries only the `_id`) names the cache entry.
 * Documents written before keep the ObjectId the server gave them (a deletion of one then drops
 * its whole kind from the caches).
 */
type KeyedId<K> = K | ObjectId;

/** A URL group; `_id` is `{organizationId, apiId}` (or an older document's ObjectId). */
export type GroupDocument = UrlGroup & { _id?: KeyedId<{ organizationId: string; apiId: string }> };

export type UserDocument = Omit<User, 'id'> & { _id: string };

/** A token, only as `tokenHash`; `_id` is the hash too (or an older document's ObjectId). */
export type TokenDocument = TokenRecord & { _id?: KeyedId<string> };

/** A membership; `_id` is `{userId, organizationId}` (or an older document's ObjectId). */
export interface MembershipDocument {
  _id?: KeyedId<{ userId: string; organizationId: string }>;
  userId: string;
  organizationId: string;
}

export interface CounterDocument {
  _id: string;
  seq: number;
}

/**
 * A keyed create's link on its way in (mongo-keyed-insert.ts): written into the running record,
 * while that record is still the request's, before the link itself is inserted, with the answer
 * the record completes with. Whoever reads it next (the request itself, or a retry claiming the
 * key) finishes the insert of this very document, or finds its alias taken by another link.
 */
export interface PendingLink {
  link: LinkDocument;
  outcome: RecordedOutcome;
}

/**
 * An idempotency record; `_id` is the key and the user's id (see mongo-idempotency-store). The
 * TTL index on `expiresAt` removes it once its lease or its life is over. A running record may
 * hold its request's pending link (then `expiresAt` is already the completed record's).
 */
export type IdempotencyDocument = (
  (RunningRecord & { pending?: PendingLink }) | CompletedRecord
) & { _id: string };

export const COLLECTIONS = {
  links: 'links',
  linkHistory: 'link_history',
  organizations: 'organizations',
  groups: 'groups',
  users: 'users',
  tokens: 'tokens',
  memberships: 'memberships',
  counters: 'counters',
  idempotency: 'idempotency_keys',
  /** Visits per link and day, links' totals and the marks of batches applied (MongoVisitStore). */
  linkVisits: 'link_visits',
  /** rate-limiter-flexible's documents (per-token and auth-failure windows). */
  rateLimits: 'rate_limits',
} as const;

/**
 * One document of `link_visits`: a link's day, a link's totals, or the mark of a visit batch
 * applied (see mongo-visit-store.ts). `_id` keys are written in this order, which range reads rely on.
 */
export interface VisitDocument {
  _id: { link: number; day: number } | { link: number } | { process: string; seq: number };
  /** On a day or totals document. */
  humans?: number;
  bots?: number;
  /** On a batch's mark. */
  markedAt?: Date;
}
