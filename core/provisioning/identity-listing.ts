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

const byId = (a: { id: string }, b: { id: string }) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const sorted = (values: string[]) => [...values].sort();

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
        .sort((a, b) => (a.apiId < b.apiId ? -1 : a.apiId > b.apiId ? 1 : 0)),
    }))
    .sort(byId);
}

export function listUsers(snapshot: IdentitySnapshot): UserListing[] {
  return snapshot.users
    .map((user) => ({
      id: user.id,
      name: user.name,
      organizations: sorted(
        snapshot.memberships
          .filter((membership) => membership.userId === user.id)
          .map((membership) => membership.organizationId),
      ),
      tokens: snapshot.tokens.filter((token) => token.userId === user.id).length,
    }))
    .sort(byId);
}
