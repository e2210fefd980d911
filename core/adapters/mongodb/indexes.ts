import type { Db, IndexSpecification } from 'mongodb';
import { COLLECTIONS } from './documents';

export interface IndexDefinition {
  collection: string;
  name: string;
  key: IndexSpecification;
  unique: boolean;
  /** A TTL index: the server removes a document this many seconds after the indexed date. */
  expireAfterSeconds?: number;
}

/**
 * The indexes the store relies on. The unique ones are what decides uniqueness (a duplicate-key
 * error on insert), never a lookup before the write.
 */
export const INDEXES = {
  linkAlias: {
    collection: COLLECTIONS.links,
    name: 'domain_alias_unique',
    key: { domain: 1, alias: 1 },
    unique: true,
  },
  tokenHash: {
    collection: COLLECTIONS.tokens,
    name: 'token_hash_unique',
    key: { tokenHash: 1 },
    unique: true,
  },
  organizationKeyHash: {
    collection: COLLECTIONS.organizations,
    name: 'key_hash_unique',
    key: { keyHash: 1 },
    unique: true,
  },
  /** Two organizations never share a link domain (stored normalised by provisioning). */
  organizationDomain: {
    collection: COLLECTIONS.organizations,
    name: 'domain_unique',
    key: { domain: 1 },
    unique: true,
  },
  groupApiId: {
    collection: COLLECTIONS.groups,
    name: 'organization_api_id_unique',
    key: { organizationId: 1, apiId: 1 },
    unique: true,
  },
  membership: {
    collection: COLLECTIONS.memberships,
    name: 'user_organization_unique',
    key: { userId: 1, organizationId: 1 },
    unique: true,
  },
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
