import type { Db, IndexSpecification } from 'mongodb';
import { COLLECTIONS } from './documents';

export interface IndexDefinition {
  collection: string;
  name: string;
  key: IndexSpecification;
  unique: boolean;
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
} as const satisfies Record<string, IndexDefinition>;

/**
 * Creates the collections (implicitly) and indexes. createIndex with the same name and spec is a
 * no-op, so every start-up and every process may run this.
 */
export async function ensureIndexes(db: Db): Promise<void> {
  for (const index of Object.values(INDEXES)) {
    await db
      .collection(index.collection)
      .createIndex(index.key, { name: index.name, unique: index.unique });
  }
}
