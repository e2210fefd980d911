import type {
  IdentitySnapshot,
  IdentityStore,
  Organization,
  OrganizationChange,
  TokenRecord,
  UrlGroup,
  User,
} from '../ports/identity-store';
import type { IdentityChange, OrganizationChanged } from '../ports/store';
import { cacheKey, LookupCache, type LookupCacheOptions } from './lookup-cache';

/**
 * Identity lookups kept per kind (tokens, organizations by key and by id, memberships, groups)
 * unless IDENTITY_CACHE_SIZE says otherwise: far more than the active tokens and organizations
 * of most deployments.
 */
export const DEFAULT_IDENTITY_CACHE_SIZE = 10_000;

/**
 * The identity lookups a create makes (token, organization key, membership, group) served from
 * bounded caches of found results for `ttlMs`. A change takes effect:
 * - at once in this process when made through this store (provisioning invalidates);
 * - at once everywhere when the backend reports changes (invalidate(), fed by change streams):
 *   the organization (by its id and key hash), token, membership or group it names, or a whole
 *   kind when the backend cannot tell which;
 * - otherwise within the TTL; tokens and organizations within `propagationTtlMs` when shorter.
 * Nothing "not found" is kept, so a new token or membership works at once everywhere.
 */
export class CachedIdentityStore implements IdentityStore {
  private readonly tokens: LookupCache<string>;
  private readonly organizationsByKey: LookupCache<Organization>;
  private readonly organizationsById: LookupCache<Organization>;
  private readonly memberships: LookupCache<true>;
  private readonly groups: LookupCache<UrlGroup>;

  constructor(
    private readonly inner: IdentityStore,
    options: {
      ttlMs: number;
      /**
       * How long a token or an organization is trusted, when shorter than `ttlMs`: a token's
       * revocation, and an organization's deactivation or key rotation, then take effect in every
       * process within the change propagation bound, as a link's disable does.
       */
      propagationTtlMs?: number;
      /**
       * How long past its time an organization is still answered while the store cannot answer
       * (ms; 0: never), so its links are followed through an election; see LookupCache. Tokens,
       * memberships and groups serve creates, which need the store anyway: never stale.
       */
      organizationStaleIfErrorMs?: number;
      /** A longer trust of every lookup while the identity change stream advances: see LookupCache. */
      trustedWhile?: LookupCacheOptions['trustedWhile'];
      now?: () => number;
      /** Entries kept per lookup kind (IDENTITY_CACHE_SIZE); the least recently used go first. */
      maxEntries?: number;
    },
  ) {
    const shape: LookupCacheOptions = {
      max: options.maxEntries ?? DEFAULT_IDENTITY_CACHE_SIZE,
      ttlMs: options.ttlMs,
      ...(options.now ? { now: options.now } : {}),
      ...(options.trustedWhile ? { trustedWhile: options.trustedWhile } : {}),
    };
    const revocableShape = { ...shape, ttlMs: options.propagationTtlMs ?? options.ttlMs };
    this.tokens = new LookupCache(revocableShape);
    const organizationShape = {
      ...revocableShape,
      staleIfErrorMs: options.organizationStaleIfErrorMs ?? 0,
    };
    this.organizationsByKey = new LookupCache(organizationShape);
    this.organizationsById = new LookupCache(organizationShape);
    this.memberships = new LookupCache(shape);
    this.groups = new LookupCache(shape);
  }

  /** Forgets what a change may have touched: one entry when it names one, else a whole kind. */
  invalidate(change: IdentityChange): void {
    if (typeof change === 'object') {
      switch (change.kind) {
        case 'organization':
          return this.forgetOrganization(change);
        case 'token':
          return this.tokens.delete(change.tokenHash);
        case 'membership':
          return this.memberships.delete(cacheKey(change.userId, change.organizationId));
        case 'group':
          return this.groups.delete(cacheKey(change.organizationId, change.apiId));
      }
    }
    if (change === 'tokens' || change === 'all') this.tokens.clear();
    if (change === 'organizations' || change === 'all') {
      this.organizationsByKey.clear();
      this.organizationsById.clear();
    }
    if (change === 'memberships' || change === 'all') this.memberships.clear();
    if (change === 'groups' || change === 'all') this.groups.clear();
  }

  /**
   * One organization, by id and by key hash; also under any former key hash (a rotation made
   * elsewhere reports only the new one), found from the cached organizations' ids. Organizations
   * change rarely: one pass over the cached organizations (IDENTITY_CACHE_SIZE at most) is cheap.
   */
  private forgetOrganization({ id, keyHash }: Omit<OrganizationChanged, 'kind'>): void {
    this.organizationsById.delete(id);
    if (keyHash !== undefined) this.organizationsByKey.delete(keyHash);
    this.organizationsByKey.deleteWhere((organization) => organization.id === id);
  }

  findUserIdByTokenHash(tokenHash: string): Promise<string | null> {
    return this.tokens.get(tokenHash, () => this.inner.findUserIdByTokenHash(tokenHash));
  }

  findOrganizationByKeyHash(keyHash: string): Promise<Organization | null> {
    return this.organizationsByKey.get(keyHash, async () => {
      const organization = await this.inner.findOrganizationByKeyHash(keyHash);
      // Following a link this process created then needs no lookup of its organization by id.
      if (organization) this.organizationsById.set(organization.id, organization);
      return organization;
    });
  }

  findOrganizationById(id: string): Promise<Organization | null> {
    return this.organizationsById.get(id, () => this.inner.findOrganizationById(id));
  }

  async isMember(userId: string, organizationId: string): Promise<boolean> {
    const member = await this.memberships.get(cacheKey(userId, organizationId), async () =>
      (await this.inner.isMember(userId, organizationId)) ? true : null,
    );
    return member === true;
  }

  findGroup(organizationId: string, apiId: string): Promise<UrlGroup | null> {
    return this.groups.get(cacheKey(organizationId, apiId), () =>
      this.inner.findGroup(organizationId, apiId),
    );
  }

  /** Not cached: the URL guard keeps its own refreshed copy. */
  listLinkDomains(): Promise<string[]> {
    return this.inner.listLinkDomains();
  }

  findUserById(id: string): Promise<User | null> {
    return this.inner.findUserById(id);
  }

  listAll(): Promise<IdentitySnapshot> {
    return this.inner.listAll();
  }

  // Writes invalidate after they land, so a lookup racing the write cannot keep the old value;
  // and also after they fail: a write whose answer was lost (MongoDB's socket timeout,
  // BACKEND_UNAVAILABLE) may have been applied all the same.

  insertOrganization(organization: Organization): Promise<void> {
    return this.thenForget(
      () => this.inner.insertOrganization(organization),
      () => this.forgetOrganization(organization),
    );
  }

  saveOrganization(organization: Organization): Promise<void> {
    // By key and by id alike (a new key leaves the old key's entry behind otherwise).
    return this.thenForget(
      () => this.inner.saveOrganization(organization),
      () => this.forgetOrganization(organization),
    );
  }

  updateOrganization(id: string, change: OrganizationChange): Promise<Organization | null> {
    return this.thenForget(
      () => this.inner.updateOrganization(id, change),
      () => this.forgetOrganization({ id, ...(change.keyHash && { keyHash: change.keyHash }) }),
    );
  }

  saveGroup(group: UrlGroup): Promise<void> {
    return this.thenForget(
      () => this.inner.saveGroup(group),
      () => this.groups.delete(cacheKey(group.organizationId, group.apiId)),
    );
  }

  insertGroup(group: UrlGroup): Promise<void> {
    return this.thenForget(
      () => this.inner.insertGroup(group),
      () => this.groups.delete(cacheKey(group.organizationId, group.apiId)),
    );
  }

  saveUser(user: User): Promise<void> {
    return this.inner.saveUser(user);
  }

  insertUser(user: User): Promise<void> {
    return this.inner.insertUser(user);
  }

  saveToken(token: TokenRecord): Promise<void> {
    return this.thenForget(
      () => this.inner.saveToken(token),
      () => this.tokens.delete(token.tokenHash),
    );
  }

  removeToken(tokenHash: string): Promise<string | null> {
    return this.thenForget(
      () => this.inner.removeToken(tokenHash),
      () => this.tokens.delete(tokenHash),
    );
  }

  removeTokensOfUser(userId: string): Promise<number> {
    // Cached by hash, answering the user: the entries answering this user go, the others stay.
    return this.thenForget(
      () => this.inner.removeTokensOfUser(userId),
      () => this.tokens.deleteWhere((user) => user === userId),
    );
  }

  saveMembership(userId: string, organizationId: string): Promise<void> {
    return this.thenForget(
      () => this.inner.saveMembership(userId, organizationId),
      () => this.memberships.delete(cacheKey(userId, organizationId)),
    );
  }

  /** `write`'s outcome, once `forget` has run, whether the write succeeded or failed. */
  private async thenForget<T>(write: () => Promise<T>, forget: () => void): Promise<T> {
    try {
      return await write();
    } finally {
      forget();
    }
  }
}
