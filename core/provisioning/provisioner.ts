import { generateOrganizationKey, hashSecret } from '../auth/secrets';
import type { Clock } from '../ports/clock';
import type { IdentityStore, Organization, UrlGroup, User } from '../ports/identity-store';
import type { ProvisioningStores } from './domain-links';
import { createGroup, saveGroup, type NewGroup } from './group-writes';
import {
  listOrganizations,
  listUsers,
  type OrganizationListing,
  type UserListing,
} from './identity-listing';
import {
  changeOrganization,
  createOrganization,
  saveOrganization,
  type NewOrganization,
  type StoredOrganization,
} from './organization-writes';
import { activeFlag } from './provisioning-input';
import { StagedIdentityStore } from './staged-identity-store';
import { issueToken, revokeToken, revokeTokensOfUser } from './token-writes';
import { addMember, createUser, saveUser, type NewUser } from './user-writes';

/**
 * Creates organizations, groups, users and tokens through the identity port. The `save...`
 * methods are upserts, so applying the same definitions twice (a seed file at every start)
 * changes nothing, and a field left out (an organization's name, scheme or active flag, a group's
 * or user's name) keeps what the store holds, the default going only to a new record; the
 * `create...` methods, the admin CLI's, refuse an id that exists, so a repeated command cannot
 * replace an organization's key or link domain. Secrets are hashed here and returned to the
 * caller exactly once. A method that refuses writes nothing.
 *
 * It reads the link store too, to count the links of a link domain: a domain that holds links
 * stays with its organization (domain-links.ts).
 *
 * Each kind of record has its own file (organization-writes, group-writes, user-writes,
 * token-writes); this class binds them to one store and clock.
 */
export class Provisioner {
  private readonly identities: IdentityStore;

  /** `stores`: a Store, or its identities and anything that counts its links. */
  constructor(
    private readonly stores: ProvisioningStores,
    private readonly clock: Clock,
  ) {
    this.identities = stores.identities;
  }

  /**
   * A provisioner over a rehearsal of this one's store: it reads the store and checks as this one
   * does, and writes nothing to it. Applying a seed there first makes any refusal come before the
   * real apply's first write.
   */
  rehearsal(): Provisioner {
    // Links are only read: the rehearsal counts the store's own.
    const staged = new StagedIdentityStore(this.identities);
    return new Provisioner({ identities: staged, links: this.stores.links }, this.clock);
  }

  saveOrganization(input: NewOrganization): Promise<StoredOrganization> {
    return saveOrganization(this.stores, input);
  }

  createOrganization(input: NewOrganization): Promise<StoredOrganization> {
    return createOrganization(this.stores, input);
  }

  /**
   * A new generated secret key for an organization (returned once); the old key stops working
   * (answered as an unknown key, ORGANIZATION_KEY_INVALID) in the same write. Nothing else of the
   * organization changes.
   */
  async rotateOrganizationKey(
    id: string,
  ): Promise<{ organization: Organization; secretKey: string }> {
    const secretKey = generateOrganizationKey();
    const organization = await changeOrganization(this.identities, id, {
      keyHash: hashSecret(secretKey),
    });
    return { organization, secretKey };
  }

  async setOrganizationActive(id: string, active: boolean): Promise<Organization> {
    return changeOrganization(this.identities, id, { active: activeFlag(id, active) });
  }

  saveGroup(input: NewGroup): Promise<UrlGroup> {
    return saveGroup(this.identities, input);
  }

  createGroup(input: NewGroup): Promise<UrlGroup> {
    return createGroup(this.identities, input);
  }

  createUser(input: NewUser): Promise<User> {
    return createUser(this.identities, input);
  }

  saveUser(input: NewUser): Promise<User> {
    return saveUser(this.identities, input);
  }

  addMember(userId: string, organizationId: string): Promise<void> {
    return addMember(this.identities, userId, organizationId);
  }

  /** Every organization with its groups, by id; no key or key hash. */
  async listOrganizations(): Promise<OrganizationListing[]> {
    return listOrganizations(await this.identities.listAll());
  }

  /** Every user with their organizations and how many tokens they hold, by id; no token. */
  async listUsers(): Promise<UserListing[]> {
    return listUsers(await this.identities.listAll());
  }

  issueToken(
    userId: string,
    given: { token?: string; tokenHash?: string } = {},
  ): Promise<{ token?: string; tokenHash: string }> {
    return issueToken(this.identities, this.clock, userId, given);
  }

  revokeToken(token: string): Promise<{ userId: string }> {
    return revokeToken(this.identities, token);
  }

  revokeTokensOfUser(userId: string): Promise<number> {
    return revokeTokensOfUser(this.identities, userId);
  }
}
