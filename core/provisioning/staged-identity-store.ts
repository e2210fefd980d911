import {
  GroupExistsError,
  LinkDomainTakenError,
  OrganizationExistsError,
  TokenTakenError,
  UserExistsError,
} from '../errors/shortlink-error';
import type {
  IdentitySnapshot,
  IdentityStore,
  Organization,
  OrganizationChange,
  TokenRecord,
  UrlGroup,
  User,
} from '../ports/identity-store';

/**
 * A rehearsal store: reads go to `base` as changed by what was written here, writes stay here and
 * never reach `base`. A seed file is applied to one first (Provisioner.rehearsal), so that any
 * refusal, from the provisioner's checks or from the store's rules (a link domain or a token held
 * by another record, see IdentityStore), comes before the real apply writes anything.
 */
export class StagedIdentityStore implements IdentityStore {
  private readonly organizations = new Map<string, Organization>();
  /** For each staged organization, what `base` held under its id (null: none). */
  private readonly replaced = new Map<string, Organization | null>();
  private readonly groups = new Map<string, UrlGroup>();
  private readonly users = new Map<string, User>();
  private readonly tokens = new Map<string, string>();
  private readonly memberships = new Set<string>();
  /** `base`'s link domains, read once: nothing writes to `base` during a rehearsal. */
  private baseDomains: Promise<Set<string>> | undefined;

  constructor(private readonly base: IdentityStore) {}

  async findOrganizationById(id: string): Promise<Organization | null> {
    return this.organizations.get(id) ?? this.base.findOrganizationById(id);
  }

  async findOrganizationByKeyHash(keyHash: string): Promise<Organization | null> {
    for (const organization of this.organizations.values()) {
      if (organization.keyHash === keyHash) return organization;
    }
    const stored = await this.base.findOrganizationByKeyHash(keyHash);
    // A stored holder staged since with another key holds this one no longer.
    return stored && !this.organizations.has(stored.id) ? stored : null;
  }

  async listLinkDomains(): Promise<string[]> {
    const freed = new Set([...this.replaced.values()].map((stored) => stored?.domain));
    const kept = [...(await this.domainsOfBase())].filter((domain) => !freed.has(domain));
    const staged = [...this.organizations.values()].map((organization) => organization.domain);
    return [...new Set([...kept, ...staged])];
  }

  async saveOrganization(organization: Organization): Promise<void> {
    const stored = this.replaced.has(organization.id)
      ? (this.replaced.get(organization.id) ?? null)
      : await this.base.findOrganizationById(organization.id);
    for (const other of this.organizations.values()) {
      if (other.id !== organization.id && other.domain === organization.domain) {
        throw new LinkDomainTakenError(organization.domain);
      }
    }
    if (await this.heldInBaseByAnother(organization.domain, stored)) {
      throw new LinkDomainTakenError(organization.domain);
    }
    this.replaced.set(organization.id, stored);
    this.organizations.set(organization.id, organization);
  }

  async insertOrganization(organization: Organization): Promise<void> {
    if (await this.findOrganizationById(organization.id)) {
      throw new OrganizationExistsError(organization.id);
    }
    await this.saveOrganization(organization);
  }

  async updateOrganization(id: string, change: OrganizationChange): Promise<Organization | null> {
    const previous = await this.findOrganizationById(id);
    if (!previous) return null;
    const updated = { ...previous, ...change };
    await this.saveOrganization(updated);
    return updated;
  }

  async findGroup(organizationId: string, apiId: string): Promise<UrlGroup | null> {
    return (
      this.groups.get(pairKey(organizationId, apiId)) ?? this.base.findGroup(organizationId, apiId)
    );
  }

  saveGroup(group: UrlGroup): Promise<void> {
    this.groups.set(pairKey(group.organizationId, group.apiId), group);
    return Promise.resolve();
  }

  async insertGroup(group: UrlGroup): Promise<void> {
    if (await this.findGroup(group.organizationId, group.apiId)) {
      throw new GroupExistsError(group.organizationId, group.apiId);
    }
    await this.saveGroup(group);
  }

  async findUserById(id: string): Promise<User | null> {
    return this.users.get(id) ?? this.base.findUserById(id);
  }

  saveUser(user: User): Promise<void> {
    this.users.set(user.id, user);
    return Promise.resolve();
  }

  async insertUser(user: User): Promise<void> {
    if (await this.findUserById(user.id)) throw new UserExistsError(user.id);
    await this.saveUser(user);
  }

  async findUserIdByTokenHash(tokenHash: string): Promise<string | null> {
    return this.tokens.get(tokenHash) ?? this.base.findUserIdByTokenHash(tokenHash);
  }

  /** A hash keeps its first user, as in every store. */
  async saveToken(token: TokenRecord): Promise<void> {
    const holder = await this.findUserIdByTokenHash(token.tokenHash);
    if (holder !== null && holder !== token.userId) throw new TokenTakenError(token.userId);
    this.tokens.set(token.tokenHash, token.userId);
  }

  async isMember(userId: string, organizationId: string): Promise<boolean> {
    return (
      this.memberships.has(pairKey(userId, organizationId)) ||
      this.base.isMember(userId, organizationId)
    );
  }

  saveMembership(userId: string, organizationId: string): Promise<void> {
    this.memberships.add(pairKey(userId, organizationId));
    return Promise.resolve();
  }

  /** A rehearsal checks a seed file and lists nothing: refused rather than half-emulated. */
  listAll(): Promise<IdentitySnapshot> {
    return Promise.reject(new Error('a provisioning rehearsal does not list'));
  }

  /** A rehearsal is of a seed file, which never revokes: refused rather than half-emulated. */
  removeToken(): Promise<string | null> {
    return Promise.reject(new Error('a provisioning rehearsal does not revoke tokens'));
  }

  removeTokensOfUser(): Promise<number> {
    return Promise.reject(new Error('a provisioning rehearsal does not revoke tokens'));
  }

  private domainsOfBase(): Promise<Set<string>> {
    this.baseDomains ??= this.base.listLinkDomains().then((domains) => new Set(domains));
    return this.baseDomains;
  }

  /**
   * Whether `domain` belongs in `base` to an organization other than the one being saved (whose
   * stored version is `own`) and not staged since with another domain.
   */
  private async heldInBaseByAnother(domain: string, own: Organization | null): Promise<boolean> {
    if (own?.domain === domain) return false;
    if (!(await this.domainsOfBase()).has(domain)) return false;
    for (const stored of this.replaced.values()) if (stored?.domain === domain) return false;
    return true;
  }
}

/** A map key of two ids (JSON, so that no id can run into the other). */
function pairKey(first: string, second: string): string {
  return JSON.stringify([first, second]);
}
