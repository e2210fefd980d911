import { UserExistsError } from '../errors/shortlink-error';
import type { IdentityStore, User } from '../ports/identity-store';
import { ProvisioningError } from './provisioning-error';
import { isListOfIds, requireId } from './provisioning-input';
import { requireOrganization, requireUser } from './required-records';

export interface NewUser {
  id: string;
  name?: string;
  organizations?: string[];
}

/** A new user; refuses an id that exists, checked in the store's write as for groups. */
export async function createUser(identities: IdentityStore, input: NewUser): Promise<User> {
  const id = requireId(input.id, 'user');
  const user: User = { id, name: input.name ?? id };
  const organizations = await requireOrganizations(identities, user.id, input.organizations);
  try {
    await identities.insertUser(user);
  } catch (error) {
    if (!(error instanceof UserExistsError)) throw error;
    throw new ProvisioningError(error.message, { cause: error });
  }
  await saveMemberships(identities, user.id, organizations);
  return user;
}

/** A user written whether it exists or not; a name left out keeps the stored one. */
export async function saveUser(identities: IdentityStore, input: NewUser): Promise<User> {
  const id = requireId(input.id, 'user');
  const stored = input.name === undefined ? await identities.findUserById(id) : null;
  const user: User = { id, name: input.name ?? stored?.name ?? id };
  const organizations = await requireOrganizations(identities, user.id, input.organizations);
  await identities.saveUser(user);
  await saveMemberships(identities, user.id, organizations);
  return user;
}

export async function addMember(
  identities: IdentityStore,
  userId: string,
  organizationId: string,
): Promise<void> {
  await requireUser(identities, userId);
  await requireOrganization(identities, organizationId);
  await identities.saveMembership(userId, organizationId);
}

/**
 * A user's organizations, each checked to exist before anything is written: a refused user
 * leaves no trace.
 */
async function requireOrganizations(
  identities: IdentityStore,
  userId: string,
  given: unknown,
): Promise<string[]> {
  const organizations: unknown = given ?? [];
  if (!isListOfIds(organizations)) {
    throw new ProvisioningError(`user "${userId}": organizations must be a list of ids`);
  }
  for (const organizationId of organizations) {
    await requireOrganization(identities, organizationId);
  }
  return organizations;
}

async function saveMemberships(
  identities: IdentityStore,
  userId: string,
  organizations: string[],
): Promise<void> {
  for (const organizationId of organizations) {
    await identities.saveMembership(userId, organizationId);
  }
}
