import { MongoServerError, type Db, type IndexSpecification } from 'mongodb';
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
  /** An organization's links newest first (links.list, paged by creation time and id). */
  linksOfOrganization: ordered(COLLECTIONS.links, 'organization_created_newest_first', {
    organizationId: 1,
    createdAt: -1,
    _id: -1,
  }),
  /** One URL group's links newest first (links.list with a group). */
  linksOfGroup: ordered(COLLECTIONS.links, 'organization_group_created_newest_first', {
    organizationId: 1,
    groupApiId: 1,
    createdAt: -1,
    _id: -1,
  }),
  /** Every link newest first (the operator's rescan and listings without an organization). */
  linksNewestFirst: ordered(COLLECTIONS.links, 'created_newest_first', {
    createdAt: -1,
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
 * The indexes of rate-limiter-flexible's MongoDB store (`rate_limits`, only without REDIS_URL),
 * with the names the library gives them: one window per key, and the TTL index by which the
 * server deletes expired windows.
 */
export const RATE_LIMIT_INDEXES = {
  rateLimitKey: unique(COLLECTIONS.rateLimits, 'key_1', { key: 1 }),
  rateLimitExpiry: {
    collection: COLLECTIONS.rateLimits,
    name: 'expire_-1',
    key: { expire: -1 },
    unique: false,
    expireAfterSeconds: 0,
  },
} as const satisfies Record<string, IndexDefinition>;

/** Every index the store and the MongoDB rate limiters use: what `admin db migrate` creates. */
export const ALL_INDEXES: readonly IndexDefinition[] = [
  ...Object.values(INDEXES),
  ...Object.values(RATE_LIMIT_INDEXES),
];

/** An index as listIndexes answers it (the fields compared here). */
interface ListedIndex {
  key: Record<string, unknown>;
  unique?: boolean;
  expireAfterSeconds?: number;
}

/** NamespaceNotFound: listIndexes on a collection that does not exist yet. */
const NAMESPACE_NOT_FOUND = 26;

/**
 * Whether `listed` is `index`: the same fields in the same order and directions, the same
 * uniqueness and expiry. The name is not compared, so an index an operator made by hand under
 * another name counts (creating it again under ours would fail on the server anyway).
 */
function isIndex(listed: ListedIndex, index: IndexDefinition): boolean {
  const wanted = Object.entries(index.key as Record<string, unknown>);
  const found = Object.entries(listed.key);
  return (
    wanted.length === found.length &&
    wanted.every(([field, direction], at) => {
      const [foundField, foundDirection] = found[at]!;
      return field === foundField && Number(direction) === Number(foundDirection);
    }) &&
    (listed.unique === true) === index.unique &&
    listed.expireAfterSeconds === index.expireAfterSeconds
  );
}

async function listIndexes(db: Db, collection: string): Promise<ListedIndex[]> {
  try {
    return (await db.collection(collection).listIndexes().toArray()) as ListedIndex[];
  } catch (error) {
    if (error instanceof MongoServerError && error.code === NAMESPACE_NOT_FOUND) return [];
    throw error;
  }
}

/** The indexes of `wanted` the database lacks: one listIndexes per collection, nothing written. */
async function missingIndexes(
  db: Db,
  wanted: readonly IndexDefinition[],
): Promise<IndexDefinition[]> {
  const missing: IndexDefinition[] = [];
  for (const collection of new Set(wanted.map((index) => index.collection))) {
    const listed = await listIndexes(db, collection);
    for (const index of wanted.filter((candidate) => candidate.collection === collection)) {
      if (!listed.some((found) => isIndex(found, index))) missing.push(index);
    }
  }
  return missing;
}

/** The indexes are missing and this process may not create them (MONGODB_CREATE_INDEXES=false). */
export class MissingIndexesError extends Error {
  override readonly name = 'MissingIndexesError';
}

export const describeIndex = (index: IndexDefinition) => `${index.collection}.${index.name}`;

/**
 * Makes sure the database has the `wanted` indexes: lists each collection's indexes and, with
 * `create`, creates only those missing (answering them); without it (MONGODB_CREATE_INDEXES=false,
 * a user without the createIndex privilege) fails with MissingIndexesError naming them and the
 * command that creates them. So a start-up of a prepared database writes nothing.
 */
export async function ensureIndexes(
  db: Db,
  wanted: readonly IndexDefinition[] = Object.values(INDEXES),
  { create = true }: { create?: boolean } = {},
): Promise<IndexDefinition[]> {
  const missing = await missingIndexes(db, wanted);
  if (missing.length > 0 && !create) {
    throw new MissingIndexesError(
      `MongoDB database ${db.databaseName} lacks ${missing.length === 1 ? 'an index' : 'indexes'} ` +
        `shortlink needs (${missing.map(describeIndex).join(', ')}), and MONGODB_CREATE_INDEXES=false ` +
        'forbids creating them at start: run `npm run admin -- db migrate` (as a user allowed to ' +
        'create indexes) and start again',
    );
  }
  for (const index of missing) {
    const { name } = index;
    const expiry =
      index.expireAfterSeconds !== undefined
        ? { expireAfterSeconds: index.expireAfterSeconds }
        : {};
    await db
      .collection(index.collection)
      .createIndex(index.key, { name, unique: index.unique, ...expiry });
  }
  return missing;
}
