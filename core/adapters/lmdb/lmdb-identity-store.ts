import type * as ports from '../../ports/identity-store';
import {
  LinkDomainTakenError,
  OrganizationExistsError,
  GroupExistsError,
  OrganizationKeyTakenError,
  TokenTakenError,
  UserExistsError,
} from '../../errors/shortlink-error';
import type { Database, Key, RangeOptions } from 'lmdb';
import type { LmdbDatabases, PairKey } from './databases';
import { onLmdb, readLmdb } from './lmdb-errors';

/**
 * Identities on LMDB. Each record lives under its natural key (organization id, [organization,
 * api id], user id, token hash, [user, organization]); the key-hash index is written in the same
 * transaction as the organization, so the two never disagree; so is the link-domain index (one
 * organization per link domain).
 */
export class LmdbIdentityStore implements ports.IdentityStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
  ) {}

  findUserIdByTokenHash(tokenHash: string): Promise<string | null> {
    return this.read('token lookup', () => this.dbs.tokens.get(tokenHash)?.userId ?? null);
  }

  findOrganizationByKeyHash(keyHash: string): Promise<ports.Organization | null> {
    return this.read('organization lookup', () => {
      const id = this.dbs.organizationsByKeyHash.get(keyHash);
      return id === undefined ? null : (this.dbs.organizations.get(id) ?? null);
    });
  }

  findOrganizationById(id: string): Promise<ports.Organization | null> {
    return this.read('organization lookup', () => this.dbs.organizations.get(id) ?? null);
  }

  isMember(userId: string, organizationId: string): Promise<boolean> {
    return this.read('membership lookup', () =>
      this.dbs.memberships.doesExist([userId, organizationId]),
    );
  }

  findGroup(organizationId: string, apiId: string): Promise<ports.UrlGroup | null> {
    return this.read('group lookup', () => this.dbs.groups.get([organizationId, apiId]) ?? null);
  }

  listLinkDomains(): Promise<string[]> {
    return this.read('link domain listing', () => {
      const domains = new Set<string>();
      for (const { value } of this.dbs.organizations.getRange()) domains.add(value.domain);
      return [...domains];
    });
  }

  findUserById(id: string): Promise<ports.User | null> {
    return this.read('user lookup', () => this.dbs.users.get(id) ?? null);
  }

  /** In one read transaction: one moment of the store, whatever other processes write meanwhile. */
  listAll(): Promise<ports.IdentitySnapshot> {
    const { root, organizations, groups, users, tokens, memberships } = this.dbs;
    return this.read('identity listing', () => {
      const transaction = root.useReadTransaction();
      try {
        const values = <V>(db: { getRange(o: RangeOptions): Iterable<{ value: V }> }) =>
          [...db.getRange({ transaction })].map(({ value }) => ({ ...value }));
        return {
          organizations: values(organizations),
          groups: values(groups),
          users: values(users),
          // A Date written from another realm (a vm context, as jest's) comes back as its ISO text.
          tokens: values(tokens).map((token) => ({
            ...token,
            createdAt: new Date(token.createdAt),
          })),
          memberships: [...memberships.getKeys({ transaction })].map(
            ([userId, organizationId]) => ({ userId, organizationId }),
          ),
        };
      } finally {
        transaction.done();
      }
    });
  }

  saveOrganization(organization: ports.Organization): Promise<void> {
    return this.writeOrganization(organization, false);
  }

  insertOrganization(organization: ports.Organization): Promise<void> {
    return this.writeOrganization(organization, true);
  }

  private writeOrganization(organization: ports.Organization, onlyNew: boolean): Promise<void> {
    const { organizations } = this.dbs;
    const stored = { ...organization };
    return this.write('organization save', async () => {
      const outcome = await organizations.transaction(() => {
        const previous = organizations.get(stored.id);
        if (onlyNew && previous !== undefined) return 'exists' as const;
        return this.placeOrganization(stored, previous);
      });
      if (outcome === 'exists') throw new OrganizationExistsError(stored.id);
      throwIfRefused(outcome, stored);
    });
  }

  async updateOrganization(
    id: string,
    change: ports.OrganizationChange,
  ): Promise<ports.Organization | null> {
    const { organizations } = this.dbs;
    const result = await onLmdb(this.dbs, this.path, 'organization update', () =>
      organizations.transaction(() => {
        const previous = organizations.get(id);
        if (previous === undefined) return null;
        const updated = { ...previous, ...change };
        return { updated, outcome: this.placeOrganization(updated, previous) };
      }),
    );
    if (result === null) return null;
    throwIfRefused(result.outcome, result.updated);
    return result.updated;
  }

  /**
   * Inside a write transaction: writes `stored` over `previous` (its record under the same id,
   * if any) with its key-hash and link-domain index entries, unless another organization holds
   * its key hash or link domain (then nothing is written).
   */
  private placeOrganization(
    stored: ports.Organization,
    previous: ports.Organization | undefined,
  ): PlaceOutcome {
    const { organizations, organizationsByKeyHash, organizationsByDomain } = this.dbs;
    const holder = organizationsByKeyHash.get(stored.keyHash);
    if (holder !== undefined && holder !== stored.id) return 'key_in_use';
    const domainHolder = organizationsByDomain.get(stored.domain);
    if (domainHolder !== undefined && domainHolder !== stored.id) return 'domain_in_use';
    if (previous && previous.keyHash !== stored.keyHash) {
      void organizationsByKeyHash.remove(previous.keyHash);
    }
    if (previous && previous.domain !== stored.domain) {
      void organizationsByDomain.remove(previous.domain);
    }
    void organizations.put(stored.id, stored);
    void organizationsByKeyHash.put(stored.keyHash, stored.id);
    void organizationsByDomain.put(stored.domain, stored.id);
    return 'saved';
  }

  saveGroup(group: ports.UrlGroup): Promise<void> {
    return this.write('group save', () =>
      this.dbs.groups.put([group.organizationId, group.apiId], { ...group }),
    );
  }

  insertGroup(group: ports.UrlGroup): Promise<void> {
    const { groups } = this.dbs;
    const key: PairKey = [group.organizationId, group.apiId];
    return this.write('group save', async () => {
      if (!(await insertIfAbsent(groups, key, { ...group }))) {
        throw new GroupExistsError(group.organizationId, group.apiId);
      }
    });
  }

  saveUser(user: ports.User): Promise<void> {
    return this.write('user save', () => this.dbs.users.put(user.id, { ...user }));
  }

  insertUser(user: ports.User): Promise<void> {
    return this.write('user save', async () => {
      if (!(await insertIfAbsent(this.dbs.users, user.id, { ...user }))) {
        throw new UserExistsError(user.id);
      }
    });
  }

  saveToken(token: ports.TokenRecord): Promise<void> {
    const { tokens } = this.dbs;
    // In one write transaction: a token hash, once saved, is never reassigned to another user.
    return this.write('token save', async () => {
      const taken = await tokens.transaction(() => {
        const holder = tokens.get(token.tokenHash);
        if (holder === undefined) void tokens.put(token.tokenHash, { ...token });
        return holder !== undefined && holder.userId !== token.userId;
      });
      if (taken) throw new TokenTakenError(token.userId);
    });
  }

  saveMembership(userId: string, organizationId: string): Promise<void> {
    return this.write('membership save', () =>
      this.dbs.memberships.put([userId, organizationId], true),
    );
  }

  removeToken(tokenHash: string): Promise<string | null> {
    const { tokens } = this.dbs;
    // In one write transaction: the user answered is the one whose token was removed.
    return onLmdb(this.dbs, this.path, 'token removal', () =>
      tokens.transaction(() => {
        const holder = tokens.get(tokenHash);
        if (holder === undefined) return null;
        void tokens.remove(tokenHash);
        return holder.userId;
      }),
    );
  }

  removeTokensOfUser(userId: string): Promise<number> {
    const { tokens } = this.dbs;
    // Tokens are keyed by hash alone: the user's are found by a scan, inside the write
    // transaction, so a token saved meanwhile is either seen and removed or saved after it.
    return onLmdb(this.dbs, this.path, 'token removal', () =>
      tokens.transaction(() => {
        const hashes: string[] = [];
        for (const { key, value } of tokens.getRange()) {
          if (value.userId === userId) hashes.push(key);
        }
        for (const hash of hashes) void tokens.remove(hash);
        return hashes.length;
      }),
    );
  }

  private read<T>(operation: string, run: () => T): Promise<T> {
    return readLmdb(this.dbs, this.path, operation, run);
  }

  private async write(operation: string, run: () => Promise<unknown>): Promise<void> {
    await onLmdb(this.dbs, this.path, operation, run);
  }
}

type PlaceOutcome = 'saved' | 'key_in_use' | 'domain_in_use';

/** The error for an organization write `placeOrganization` refused; none when it was saved. */
function throwIfRefused(outcome: PlaceOutcome, organization: ports.Organization): void {
  if (outcome === 'domain_in_use') throw new LinkDomainTakenError(organization.domain);
  if (outcome === 'key_in_use') throw new OrganizationKeyTakenError(organization.id);
}

/** Writes `value` under `key` when no record is there, in one write transaction: whether it did. */
function insertIfAbsent<V, K extends Key>(db: Database<V, K>, key: K, value: V): Promise<boolean> {
  return db.transaction(() => {
    if (db.doesExist(key)) return false;
    void db.put(key, value);
    return true;
  });
}
