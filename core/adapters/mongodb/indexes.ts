import type { Db, IndexSpecification } from 'mongodb';
import { COLLECTIONS } from './documents';
import { VISIT_BATCH_MARK_SECONDS } from './mongo-visit-store';

interface IndexDefinition {
  collection: string;
  name: string;
  key: IndexSpecification;
  unique: boolean;
  /** A TTL index: the server removes a document this many seconds after the indexed date. */
  expireAfterSeconds?: number;
}

/** A unique index: a second document with the same key values fails to insert. */
function unique<K extends Record<string, 1>>(collection: string, name: string, key: K) {
  return { collection, name, key, unique: true };
}

/** An ordinary index, for reads that filter and sort on `key`. */
function ordered<K extends Record<string, 1 | -1>>(collection: string, name: string, key: K) {
  return { collection, name, key, unique: false };
}

/** The `_id` index every collection has (so not in INDEXES): it decides a first insert by id. */
export const ID_INDEX = { name: '_id_', key: { _id: 1 } } as const;

/**
 * The indexes the store relies on. The unique ones are what decides uniqueness (a duplicate-key
 * error on insert), never a lookup before the write.
 */
export const INDEXES = {
  linkAlias: unique(COLLECTIONS.links, 'domain_alias_unique', { domain: 1, alias: 1 }),
  /** An organization's links newest first (links.list, paged by `_id < beforeId`). */
  linksOfOrganization: ordered(COLLECTIONS.links, 'organization_newest_first', {
    organizationId: 1,
    _id: -1,
  }),
  /** One URL group's links newest first (links.list with a group). */
  linksOfGroup: ordered(COLLECTIONS.links, 'organization_group_newest_first', {
    organizationId: 1,
    groupApiId: 1,
    _id: -1,
  }),
  /**
   * A link's history in order (links.history, paged by position). The `_id` index cannot serve it:
   * it indexes `_id` ({link, position}) as a whole, not the fields the page filters and sorts on.
   */
  linkHistoryInOrder: ordered(COLLECTIONS.linkHistory, 'link_position', {
    '_id.link': 1,
    '_id.position': 1,
  }),
  tokenHash: unique(COLLECTIONS.tokens, 'token_hash_unique', { tokenHash: 1 }),
  organizationKeyHash: unique(COLLECTIONS.organizations, 'key_hash_unique', { keyHash: 1 }),
  /** Two organizations never share a link domain (stored normalised by provisioning). */
  organizationDomain: unique(COLLECTIONS.organizations, 'domain_unique', { domain: 1 }),
  groupApiId: unique(COLLECTIONS.groups, 'organization_api_id_unique', {
    organizationId: 1,
    apiId: 1,
  }),
  membership: unique(COLLECTIONS.memberships, 'user_organization_unique', {
    userId: 1,
    organizationId: 1,
  }),
  /**
   * Expired idempotency records go away by themselves (the server's TTL monitor runs about once
   * a minute, so claims also treat an expired record as absent).
   */
  idempotencyExpiry: {
    collection: COLLECTIONS.idempotency,
    name: 'expires_at_ttl',
    key: { expiresAt: 1 },
    unique: false,
    expireAfterSeconds: 0,
  },
  /** The marks of applied visit batches go a day later (only day and total documents stay). */
  visitBatchMarks: {
    collection: COLLECTIONS.linkVisits,
    name: 'marked_at_ttl',
    key: { markedAt: 1 },
    unique: false,
    expireAfterSeconds: VISIT_BATCH_MARK_SECONDS,
  },
} as const satisfies Record<string, IndexDefinition>;

/**
 * Creates the collections (implicitly) and indexes. createIndex with the same name and spec is a
 * no-op, so every start-up and every process may run this.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  for (const index of Object.values(INDEXES)) {
    const { name, unique } = index;
    const expiry =
      'expireAfterSeconds' in index ? { expireAfterSeconds: index.expireAfterSeconds } : {};
    await db.collection(index.collection).createIndex(index.key, { name, unique, ...expiry });
  }
}
