import {
  GroupExistsError,
  LinkDomainTakenError,
  OrganizationExistsError,
  OrganizationKeyTakenError,
  TokenTakenError,
  UserExistsError,
} from '../../errors/shortlink-error';
import type * as ports from '../../ports/identity-store';

/** One key from two ids, each prefixed with its length: ids are any text, a NUL included. */
const pairKey = (first: string, second: string) =>
  `${first.length}:${first}${second.length}:${second}`;

/**
 * A found record as a copy, as LMDB and MongoDB answer (their records are decoded anew): a caller
 * that changes it changes nothing stored.
 */
const copyOf = <T extends object>(record: T | undefined): T | null =>
  record === undefined ? null : { ...record };

/** The embedded identity store: process-local maps, keyed as the port documents. */
export class MemoryIdentityStore implements ports.IdentityStore {
  private readonly organizations = new Map<string, ports.Organization>();
  private readonly organizationsByKeyHash = new Map<string, ports.Organization>();
  /** Link domain -> organization id: the unique key on domains. */
  private readonly organizationIdsByDomain = new Map<string, string>();
  private readonly groups = new Map<string, ports.UrlGroup>();
  private readonly users = new Map<string, ports.User>();
  private readonly tokens = new Map<string, ports.TokenRecord>();
  private readonly memberships = new Map<string, { userId: string; organizationId: string }>();

  findUserIdByTokenHash(tokenHash: string): Promise<string | null> {
    return Promise.resolve(this.tokens.get(tokenHash)?.userId ?? null);
  }

  findOrganizationByKeyHash(keyHash: string): Promise<ports.Organization | null> {
    return Promise.resolve(copyOf(this.organizationsByKeyHash.get(keyHash)));
  }

  findOrganizationById(id: string): Promise<ports.Organization | null> {
    return Promise.resolve(copyOf(this.organizations.get(id)));
  }

  isMember(userId: string, organizationId: string): Promise<boolean> {
    return Promise.resolve(this.memberships.has(pairKey(userId, organizationId)));
  }

  findGroup(organizationId: string, apiId: string): Promise<ports.UrlGroup | null> {
    return Promise.resolve(copyOf(this.groups.get(pairKey(organizationId, apiId))));
  }

  listLinkDomains(): Promise<string[]> {
    return Promise.resolve([...new Set([...this.organizations.values()].map((o) => o.domain))]);
  }

  findUserById(id: string): Promise<ports.User | null> {
    return Promise.resolve(copyOf(this.users.get(id)));
  }

  insertOrganization(organization: ports.Organization): Promise<void> {
    if (this.organizations.has(organization.id)) {
      return Promise.reject(new OrganizationExistsError(organization.id));
    }
    return this.saveOrganization(organization);
  }

  saveOrganization(organization: ports.Organization): Promise<void> {
    const holder = this.organizationIdsByDomain.get(organization.domain);
    if (holder !== undefined && holder !== organization.id) {
      return Promise.reject(new LinkDomainTakenError(organization.domain));
    }
    // A key hash is a unique key, as on LMDB and MongoDB: taking another organization's would
    // hand its key to this one (and its next rotation would unindex this one's key).
    const keyHolder = this.organizationsByKeyHash.get(organization.keyHash);
    if (keyHolder !== undefined && keyHolder.id !== organization.id) {
      return Promise.reject(new OrganizationKeyTakenError(organization.id));
    }
    const previous = this.organizations.get(organization.id);
    if (previous) {
      this.organizationsByKeyHash.delete(previous.keyHash);
      this.organizationIdsByDomain.delete(previous.domain);
    }
    this.organizationIdsByDomain.set(organization.domain, organization.id);
    const stored = { ...organization };
    this.organizations.set(organization.id, stored);
    this.organizationsByKeyHash.set(organization.keyHash, stored);
    return Promise.resolve();
  }

  /** Read and written in one synchronous step: nothing else runs between the two. */
  updateOrganization(
    id: string,
    change: ports.OrganizationChange,
  ): Promise<ports.Organization | null> {
    const previous = this.organizations.get(id);
    if (!previous) return Promise.resolve(null);
    const updated = { ...previous, ...change };
    return this.saveOrganization(updated).then(() => updated);
  }

  saveGroup(group: ports.UrlGroup): Promise<void> {
    this.groups.set(pairKey(group.organizationId, group.apiId), { ...group });
    return Promise.resolve();
  }

  insertGroup(group: ports.UrlGroup): Promise<void> {
    if (this.groups.has(pairKey(group.organizationId, group.apiId))) {
      return Promise.reject(new GroupExistsError(group.organizationId, group.apiId));
    }
    return this.saveGroup(group);
  }

  saveUser(user: ports.User): Promise<void> {
    this.users.set(user.id, { ...user });
    return Promise.resolve();
  }

  insertUser(user: ports.User): Promise<void> {
    if (this.users.has(user.id)) return Promise.reject(new UserExistsError(user.id));
    return this.saveUser(user);
  }

  saveToken(token: ports.TokenRecord): Promise<void> {
    const holder = this.tokens.get(token.tokenHash);
    if (holder && holder.userId !== token.userId) {
      return Promise.reject(new TokenTakenError(token.userId));
    }
    if (!holder) this.tokens.set(token.tokenHash, { ...token });
    return Promise.resolve();
  }

  saveMembership(userId: string, organizationId: string): Promise<void> {
    this.memberships.set(pairKey(userId, organizationId), { userId, organizationId });
    return Promise.resolve();
  }

  removeToken(tokenHash: string): Promise<string | null> {
    const holder = this.tokens.get(tokenHash);
    this.tokens.delete(tokenHash);
    return Promise.resolve(holder?.userId ?? null);
  }

  removeTokensOfUser(userId: string): Promise<number> {
    let removed = 0;
    for (const [tokenHash, token] of this.tokens) {
      if (token.userId !== userId) continue;
      this.tokens.delete(tokenHash);
      removed += 1;
    }
    return Promise.resolve(removed);
  }

  listAll(): Promise<ports.IdentitySnapshot> {
    return Promise.resolve(this.snapshot());
  }

  /** Everything held, as copies (the admin CLI writes it back to a seed file, hashes only). */
  snapshot(): ports.IdentitySnapshot {
    return {
      organizations: [...this.organizations.values()].map((o) => ({ ...o })),
      groups: [...this.groups.values()].map((g) => ({ ...g })),
      users: [...this.users.values()].map((u) => ({ ...u })),
      tokens: [...this.tokens.values()].map((t) => ({ ...t })),
      memberships: [...this.memberships.values()].map((membership) => ({ ...membership })),
    };
  }
}
