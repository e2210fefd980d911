import { isSendableToken } from '../auth/bearer';
import {
  generateOrganizationKey,
  generateToken,
  hashSecret,
  MIN_CHOSEN_SECRET_LENGTH,
  SECRET_HASH_PATTERN,
} from '../auth/secrets';
import type { Clock } from '../ports/clock';
import {
  MAX_ID_LENGTH,
  type IdentityStore,
  type LinkScheme,
  type Organization,
  type OrganizationChange,
  type UrlGroup,
  type User,
} from '../ports/identity-store';
import {
  GroupExistsError,
  LinkDomainTakenError,
  OrganizationExistsError,
  TokenTakenError,
  UserExistsError,
} from '../errors/shortlink-error';
import {
  listOrganizations,
  listUsers,
  type OrganizationListing,
  type UserListing,
} from './identity-listing';
import { isLinkScheme, normalizeLinkDomain, withoutDefaultPort } from './link-domain';
import { StagedIdentityStore } from './staged-identity-store';

/** What a link domain must look like, said with every refusal of one. */
const LINK_DOMAIN_FORM =
  'give a host name (no empty label, at most 253 characters) or an IP address, with a port from 1 to 65535 when not the default, and nothing else (no scheme, path or credentials)';

export class ProvisioningError extends Error {
  override readonly name = 'ProvisioningError';
}

/** A refusal because a record the command names (an organization, a user, a token) is not there. */
export class NotFoundProvisioningError extends ProvisioningError {}

export interface NewOrganization {
  id: string;
  name?: string;
  domain: string;
  scheme?: LinkScheme;
  active?: boolean;
  /**
   * The secret key to use. Omitted: a new organization gets a generated one (returned once), an
   * existing one keeps its key (`rotateOrganizationKey` replaces it).
   */
  secretKey?: string;
  /** Alternatively the SHA-256 of a key issued earlier (seed files written by the CLI). */
  secretKeyHash?: string;
}

/**
 * Creates organizations, groups, users and tokens through the identity port. The `save...`
 * methods are upserts, so applying the same definitions twice (a seed file at every start)
 * changes nothing, and a field left out (an organization's name, scheme or active flag, a group's
 * or user's name) keeps what the store holds, the default going only to a new record; the
 * `create...` methods, the admin CLI's, refuse an id that exists, so a repeated command cannot
 * replace an organization's key or link domain. Secrets are hashed here
 * and returned to the caller exactly once. A method that refuses writes nothing.
 */
export class Provisioner {
  constructor(
    private readonly identities: IdentityStore,
    private readonly clock: Clock,
  ) {}

  /**
   * A provisioner over a rehearsal of this one's store: it reads the store and checks as this one
   * does, and writes nothing to it. Applying a seed there first makes any refusal come before the
   * real apply's first write.
   */
  rehearsal(): Provisioner {
    return new Provisioner(new StagedIdentityStore(this.identities), this.clock);
  }

  saveOrganization(
    input: NewOrganization,
  ): Promise<{ organization: Organization; secretKey?: string }> {
    return this.storeOrganization(input, false);
  }

  /**
   * A new organization; refuses an id that exists (the existing one is left as it is). The store
   * checks the id in the same atomic write, so of two concurrent creates of one id one wins and
   * the other writes nothing (its generated key is never printed).
   */
  async createOrganization(
    input: NewOrganization,
  ): Promise<{ organization: Organization; secretKey?: string }> {
    try {
      return await this.storeOrganization(input, true);
    } catch (error) {
      if (!(error instanceof OrganizationExistsError)) throw error;
      throw new ProvisioningError(
        `organization "${error.id}" already exists; it is left as it is (its key and link domain unchanged)`,
        { cause: error },
      );
    }
  }

  private async storeOrganization(
    input: NewOrganization,
    onlyNew: boolean,
  ): Promise<{ organization: Organization; secretKey?: string }> {
    const id = requireId(input.id, 'organization');
    const written = typeof input.domain === 'string' ? normalizeLinkDomain(input.domain) : null;
    if (!written) {
      throw new ProvisioningError(
        `invalid link domain "${String(input.domain)}": ${LINK_DOMAIN_FORM}`,
      );
    }
    // An upsert keeps what a field left out holds now (a seed file applied at every start must not
    // reactivate an organization the CLI deactivated); defaults are for a new organization.
    const stored = onlyNew ? null : await this.identities.findOrganizationById(id);
    const scheme = input.scheme ?? stored?.scheme ?? 'https';
    // Checked here, not only by the types: an embedder in plain JS reaches this too, and a link
    // domain's scheme is written into every short URL (`javascript://...` was).
    if (!isLinkScheme(scheme)) {
      throw new ProvisioningError(
        `organization "${id}": scheme must be "http" or "https", not ${JSON.stringify(scheme)}`,
      );
    }
    // `acme.link:443` for https is `acme.link`: a browser following `https://acme.link:443/x`
    // sends `Host: acme.link`, which found no link of a domain stored with the port.
    const domain = withoutDefaultPort(written, scheme);
    const active = activeFlag(id, input.active ?? stored?.active ?? true);
    // A key left out keeps the stored one, as the other fields do: generating one here replaced
    // the key of an existing organization at every re-save (an embedder's start-up), and every
    // caller holding the old key got code 12. A new organization gets a generated key.
    const keptKey: { hash: string; generated?: string } | undefined =
      stored && input.secretKey === undefined && input.secretKeyHash === undefined
        ? { hash: stored.keyHash }
        : undefined;
    const { hash: keyHash, generated } =
      keptKey ??
      secretHash(
        `the secret key of organization "${id}"`,
        input.secretKey,
        input.secretKeyHash,
        generateOrganizationKey,
      );
    const organization: Organization = {
      id,
      name: input.name ?? stored?.name ?? input.id,
      domain,
      scheme,
      active,
      keyHash,
    };
    const holder = await this.identities.findOrganizationByKeyHash(keyHash);
    if (holder && holder.id !== organization.id) {
      throw new ProvisioningError(
        `organization "${organization.id}": its secret key is already in use`,
      );
    }
    try {
      await (onlyNew
        ? this.identities.insertOrganization(organization)
        : this.identities.saveOrganization(organization));
    } catch (error) {
      if (error instanceof LinkDomainTakenError) {
        throw new ProvisioningError(
          `organization "${organization.id}": the link domain "${domain}" already belongs to another organization`,
          { cause: error },
        );
      }
      throw error;
    }
    return generated === undefined ? { organization } : { organization, secretKey: generated };
  }

  /**
   * A new generated secret key for an organization (returned once); the old key stops working
   * (answered as an unknown key, code 12) in the same write. Nothing else of the organization
   * changes.
   */
  async rotateOrganizationKey(
    id: string,
  ): Promise<{ organization: Organization; secretKey: string }> {
    const secretKey = generateOrganizationKey();
    const organization = await this.changeOrganization(id, { keyHash: hashSecret(secretKey) });
    return { organization, secretKey };
  }

  async setOrganizationActive(id: string, active: boolean): Promise<Organization> {
    return this.changeOrganization(id, { active: activeFlag(id, active) });
  }

  /**
   * An existing organization with `change` applied, in one atomic write of the store: a change
   * another command makes at the same moment (a rotation beside a deactivation) is kept.
   */
  private async changeOrganization(id: string, change: OrganizationChange): Promise<Organization> {
    const updated = await this.identities.updateOrganization(id, change);
    if (!updated) throw noOrganization(id);
    return updated;
  }

  async saveGroup(input: {
    organizationId: string;
    apiId: string;
    name?: string;
  }): Promise<UrlGroup> {
    await this.requireOrganization(input.organizationId);
    const apiId = requireId(input.apiId, 'group api id');
    // A name left out keeps the stored one, as for organizations.
    const stored =
      input.name === undefined
        ? await this.identities.findGroup(input.organizationId, apiId)
        : null;
    const group: UrlGroup = {
      organizationId: input.organizationId,
      apiId,
      name: input.name ?? stored?.name ?? apiId,
    };
    await this.identities.saveGroup(group);
    return group;
  }

  /**
   * A new group; refuses one that exists in the organization. The store checks it in the same
   * atomic write, so of two concurrent creates of one group one wins and the other writes nothing.
   */
  async createGroup(input: {
    organizationId: string;
    apiId: string;
    name?: string;
  }): Promise<UrlGroup> {
    const apiId = requireId(input.apiId, 'group api id');
    await this.requireOrganization(input.organizationId);
    const group: UrlGroup = {
      organizationId: input.organizationId,
      apiId,
      name: input.name ?? apiId,
    };
    try {
      await this.identities.insertGroup(group);
    } catch (error) {
      if (!(error instanceof GroupExistsError)) throw error;
      throw new ProvisioningError(error.message, { cause: error });
    }
    return group;
  }

  /** A new user; refuses an id that exists, checked as for groups (createGroup). */
  async createUser(input: { id: string; name?: string; organizations?: string[] }): Promise<User> {
    const id = requireId(input.id, 'user');
    const user: User = { id, name: input.name ?? id };
    const organizations = await this.requireOrganizations(user.id, input.organizations);
    try {
      await this.identities.insertUser(user);
    } catch (error) {
      if (!(error instanceof UserExistsError)) throw error;
      throw new ProvisioningError(error.message, { cause: error });
    }
    await this.saveMemberships(user.id, organizations);
    return user;
  }

  async saveUser(input: { id: string; name?: string; organizations?: string[] }): Promise<User> {
    const id = requireId(input.id, 'user');
    // A name left out keeps the stored one, as for organizations.
    const stored = input.name === undefined ? await this.identities.findUserById(id) : null;
    const user: User = { id, name: input.name ?? stored?.name ?? id };
    const organizations = await this.requireOrganizations(user.id, input.organizations);
    await this.identities.saveUser(user);
    await this.saveMemberships(user.id, organizations);
    return user;
  }

  /**
   * A user's organizations, each checked to exist before anything is written: a refused user
   * leaves no trace.
   */
  private async requireOrganizations(userId: string, given: unknown): Promise<string[]> {
    const organizations: unknown = given ?? [];
    if (!isListOfIds(organizations)) {
      throw new ProvisioningError(`user "${userId}": organizations must be a list of ids`);
    }
    for (const organizationId of organizations) await this.requireOrganization(organizationId);
    return organizations;
  }

  private async saveMemberships(userId: string, organizations: string[]): Promise<void> {
    for (const organizationId of organizations) {
      await this.identities.saveMembership(userId, organizationId);
    }
  }

  /** Every organization with its groups, by id; no key or key hash. */
  async listOrganizations(): Promise<OrganizationListing[]> {
    return listOrganizations(await this.identities.listAll());
  }

  /** Every user with their organizations and how many tokens they hold, by id; no token. */
  async listUsers(): Promise<UserListing[]> {
    return listUsers(await this.identities.listAll());
  }

  async addMember(userId: string, organizationId: string): Promise<void> {
    await this.requireUser(userId);
    await this.requireOrganization(organizationId);
    await this.identities.saveMembership(userId, organizationId);
  }

  /** Issues a token for `userId`: a new one (returned once) or a given one / its hash. */
  async issueToken(
    userId: string,
    given: { token?: string; tokenHash?: string } = {},
  ): Promise<{ token?: string; tokenHash: string }> {
    await this.requireUser(userId);
    if (typeof given.token === 'string' && !isSendableToken(given.token)) {
      throw new ProvisioningError(
        `a token of user "${userId}" has characters that cannot be sent as "Bearer <token>"`,
      );
    }
    const { hash: tokenHash, generated } = secretHash(
      `a token of user "${userId}"`,
      given.token,
      given.tokenHash,
      generateToken,
    );
    try {
      await this.identities.saveToken({ tokenHash, userId, createdAt: this.clock.now() });
    } catch (error) {
      // The store keeps a token's first user: this user would get 17 with it.
      if (!(error instanceof TokenTakenError)) throw error;
      throw new ProvisioningError(`a token of user "${userId}" is already in use by another user`, {
        cause: error,
      });
    }
    return generated === undefined ? { tokenHash } : { token: generated, tokenHash };
  }

  /**
   * Revokes a token (given in clear, handled only as its hash): the store removes the hash, so
   * the token answers code 11 from then on. Answers whose it was; an unknown token (never issued,
   * or revoked already) is refused and nothing is written.
   */
  async revokeToken(token: string): Promise<{ userId: string }> {
    if (typeof token !== 'string' || token === '') {
      throw new ProvisioningError('no token given to revoke');
    }
    const userId = await this.identities.removeToken(hashSecret(token));
    if (userId === null) {
      throw new NotFoundProvisioningError(
        'no such token: it is unknown or revoked already; nothing was changed',
      );
    }
    return { userId };
  }

  /** Revokes every token of a user (one lost rather than leaked); answers how many. */
  async revokeTokensOfUser(userId: string): Promise<number> {
    await this.requireUser(userId);
    return this.identities.removeTokensOfUser(userId);
  }

  private async requireOrganization(id: string): Promise<Organization> {
    const organization = await this.identities.findOrganizationById(id);
    if (!organization) throw noOrganization(id);
    return organization;
  }

  private async requireUser(id: string): Promise<void> {
    if (!(await this.identities.findUserById(id))) {
      throw new NotFoundProvisioningError(`no user "${id}"`);
    }
  }
}

/**
 * A secret given as its hash, given in clear, or generated — then returned (once) to the caller.
 * A given one is held to the seed file's rules (an embedder in plain JS reaches this too): a
 * chosen secret of at least MIN_CHOSEN_SECRET_LENGTH characters, a hash of 64 hex digits. `what`
 * names it in the refusal, which never repeats the secret.
 */
function secretHash(
  what: string,
  clear: string | undefined,
  hash: string | undefined,
  generate: () => string,
): { hash: string; generated?: string } {
  if (hash !== undefined) {
    if (typeof hash !== 'string' || !SECRET_HASH_PATTERN.test(hash)) {
      throw new ProvisioningError(
        `${what}: its hash must be a SHA-256 in 64 lower-case hex digits`,
      );
    }
    return { hash };
  }
  if (clear !== undefined) {
    if (typeof clear !== 'string' || clear.length < MIN_CHOSEN_SECRET_LENGTH) {
      throw new ProvisioningError(
        `${what}: a chosen secret must have at least ${MIN_CHOSEN_SECRET_LENGTH} characters`,
      );
    }
    return { hash: hashSecret(clear) };
  }
  const generated = generate();
  return { hash: hashSecret(generated), generated };
}

/**
 * An organization's active flag, checked here and not only by the types: from plain JavaScript
 * `'false'` would be stored, and read as true (the organization kept creating links).
 */
function activeFlag(id: string, active: unknown): boolean {
  if (typeof active === 'boolean') return active;
  throw new ProvisioningError(
    `organization "${id}": active must be true or false, not ${JSON.stringify(active)}`,
  );
}

function requireId(value: string, what: string): string {
  if (typeof value !== 'string') throw new ProvisioningError(`${what} id must be a string`);
  const id = value.trim();
  if (id === '') throw new ProvisioningError(`${what} id must not be empty`);
  if (id.length > MAX_ID_LENGTH) {
    throw new ProvisioningError(`${what} id must have at most ${MAX_ID_LENGTH} characters`);
  }
  return id;
}

function noOrganization(id: string): NotFoundProvisioningError {
  return new NotFoundProvisioningError(`no organization "${id}"`);
}

function isListOfIds(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((id) => typeof id === 'string');
}
