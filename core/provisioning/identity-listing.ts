import type { IdentitySnapshot, LinkScheme } from '../ports/identity-store';

/** An organization as the admin CLI lists it: no key, no key hash. */
export interface OrganizationListing {
  id: string;
  name: string;
  /** Where its short links live: `https://acme.link`. */
  linkDomain: `${LinkScheme}://${string}`;
  active: boolean;
  groups: Array<{ apiId: string; name: string }>;
}

/** A user as the admin CLI lists it: how many tokens, never a token or its hash. */
export interface UserListing {
  id: string;
  name: string;
  organizations: string[];
  tokens: number;
}

/** Code-unit order, as `Array.prototype.sort` without a comparator gives for strings. */
const byText = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
const byId = (a: { id: string }, b: { id: string }) => byText(a.id, b.id);

export function listOrganizations(snapshot: IdentitySnapshot): OrganizationListing[] {
  return snapshot.organizations
    .map((organization) => ({
      id: organization.id,
      name: organization.name,
      linkDomain: `${organization.scheme}://${organization.domain}` as const,
      active: organization.active,
      groups: snapshot.groups
        .filter((group) => group.organizationId === organization.id)
        .map(({ apiId, name }) => ({ apiId, name }))
        .sort((a, b) => byText(a.apiId, b.apiId)),
    }))
    .sort(byId);
}

export function listUsers(snapshot: IdentitySnapshot): UserListing[] {
  return snapshot.users
    .map((user) => ({
      id: user.id,
      name: user.name,
      organizations: snapshot.memberships
        .filter((membership) => membership.userId === user.id)
        .map((membership) => membership.organizationId)
        .sort(byText),
      tokens: snapshot.tokens.filter((token) => token.userId === user.id).length,
    }))
    .sort(byId);
}
