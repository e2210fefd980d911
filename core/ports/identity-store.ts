/** Who may call the service and on whose behalf: users, their tokens, organizations, groups. */

export type LinkScheme = 'http' | 'https';

/**
 * The longest id of an organization, a group or a user. Ids are store keys, and LMDB keys some
 * by two of them (a membership, a group) in at most 1978 bytes: a longer one failed there with
 * an error of the driver's. 255 characters of UTF-16 are at most 765 bytes of UTF-8. Provisioning
 * refuses a longer id, so a longer one names nothing and is not looked up.
 */
export const MAX_ID_LENGTH = 255;

export interface Organization {
  id: string;
  name: string;
  /** The link domain, lower-case `host` or `host:port`. */
  domain: string;
  scheme: LinkScheme;
  active: boolean;
  /** SHA-256 (hex) of the organization secret key; the key itself is never stored. */
  keyHash: string;
}

export interface UrlGroup {
  organizationId: string;
  apiId: string;
  name: string;
}

export interface User {
  id: string;
  name: string;
}

/** What `updateOrganization` may change: the fields the admin CLI changes alone. */
export type OrganizationChange = Partial<Pick<Organization, 'active' | 'keyHash'>>;

export interface TokenRecord {
  /** SHA-256 (hex) of the personal access token. */
  tokenHash: string;
  userId: string;
  createdAt: Date;
}

/** Every identity record a store holds, as copies (secrets only as their stored hashes). */
export interface IdentitySnapshot {
  organizations: Organization[];
  groups: UrlGroup[];
  users: User[];
  tokens: TokenRecord[];
  memberships: Array<{ userId: string; organizationId: string }>;
}

export interface IdentityStore {
  findUserIdByTokenHash(tokenHash: string): Promise<string | null>;
  findOrganizationByKeyHash(keyHash: string): Promise<Organization | null>;
  findOrganizationById(id: string): Promise<Organization | null>;
  isMember(userId: string, organizationId: string): Promise<boolean>;
  findGroup(organizationId: string, apiId: string): Promise<UrlGroup | null>;
  /** Every organization's link domain (for loop detection and for following links). */
  listLinkDomains(): Promise<string[]>;

  /** Provisioning: each call is an idempotent upsert keyed as documented. */
  /**
   * By id. Rejects with LinkDomainTakenError when another organization has the same (normalised)
   * link domain: stores enforce it with a unique key, not a lookup before the write.
   */
  saveOrganization(organization: Organization): Promise<void>;
  /**
   * Like saveOrganization, for a new id only: rejects with OrganizationExistsError when the id
   * exists, checked in the same atomic write (never a lookup before it), and writes nothing.
   */
  insertOrganization(organization: Organization): Promise<void>;
  /**
   * An existing organization with `change` applied, read and written in one atomic write (a
   * change made meanwhile by another caller, of another field, is kept): answers it as changed,
   * or null when no organization has the id (then nothing is written). A key hash another
   * organization holds rejects with OrganizationKeyTakenError, as in saveOrganization.
   */
  updateOrganization(id: string, change: OrganizationChange): Promise<Organization | null>;
  saveGroup(group: UrlGroup): Promise<void>; // by (organizationId, apiId)
  /**
   * Like saveGroup, for a new (organizationId, apiId) only: rejects with GroupExistsError when it
   * exists, checked in the same atomic write, and writes nothing.
   */
  insertGroup(group: UrlGroup): Promise<void>;
  saveUser(user: User): Promise<void>; // by id
  /** Like saveUser, for a new id only: rejects with UserExistsError, as insertGroup. */
  insertUser(user: User): Promise<void>;
  /**
   * By token hash. A hash keeps its first user: saving it again for that user changes nothing;
   * for another user it rejects with TokenTakenError, checked in the same atomic write.
   */
  saveToken(token: TokenRecord): Promise<void>;
  saveMembership(userId: string, organizationId: string): Promise<void>;
  findUserById(id: string): Promise<User | null>;
  /**
   * Every record, read at one moment where the store can (one read transaction on LMDB; one query
   * per collection on MongoDB): for the admin CLI's listings, which are small next to the links.
   */
  listAll(): Promise<IdentitySnapshot>;

  /** Revocation: a removed hash is unknown afterwards (TOKEN_UNKNOWN), as one never saved. */
  /**
   * Removes the token hash; answers the user it belonged to, or null when no token has it (then
   * nothing is written). The lookup and the removal are one atomic write.
   */
  removeToken(tokenHash: string): Promise<string | null>;
  /**
   * Removes every token hash of the user in one atomic write (LMDB, memory); MongoDB removes them
   * with one deleteMany, atomic per token. Answers how many were removed.
   */
  removeTokensOfUser(userId: string): Promise<number>;
}
