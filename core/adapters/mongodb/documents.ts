import type {
  CompletedRecord,
  RecordedOutcome,
  RunningRecord,
} from '../../ports/idempotency-store';
import type { Organization, TokenRecord, UrlGroup, User } from '../../ports/identity-store';
import type { LinkDisabling, LinkRecord } from '../../ports/link-store';

/**
 * What each collection holds: the ports' records, with the id as `_id` where it is the key.
 * Secrets appear only as SHA-256 hashes (the ports pass nothing else). These shapes stay inside
 * the adapter: the ports know nothing of MongoDB.
 */

/**
 * A link; its `_id` is the link id from the counter. `disabled` is there only while the link is
 * disabled (an enable `$unset`s it), so "active" is `{disabled: {$exists: false}}`.
 */
export type LinkDocument = Omit<LinkRecord, 'id' | 'disabled'> & {
  _id: number;
  disabled?: LinkDisabling;
};

/** An organization; `_id` is its id, the secret key only as `keyHash`. */
export type OrganizationDocument = Omit<Organization, 'id'> & { _id: string };

export type GroupDocument = UrlGroup;

export type UserDocument = Omit<User, 'id'> & { _id: string };

/** A token, only as `tokenHash`. */
export type TokenDocument = TokenRecord;

export interface MembershipDocument {
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
  organizations: 'organizations',
  groups: 'groups',
  users: 'users',
  tokens: 'tokens',
  memberships: 'memberships',
  counters: 'counters',
  idempotency: 'idempotency_keys',
  /** rate-limiter-flexible's documents (per-token and auth-failure windows). */
  rateLimits: 'rate_limits',
} as const;
