import type { IdentityStore, Organization } from '../ports/identity-store';
import { NotFoundProvisioningError } from './provisioning-error';

/** The organization `id`, or a refusal naming it. */
export async function requireOrganization(
  identities: IdentityStore,
  id: string,
): Promise<Organization> {
  const organization = await identities.findOrganizationById(id);
  if (!organization) throw noOrganization(id);
  return organization;
}

/** Refuses a user that is not there. */
export async function requireUser(identities: IdentityStore, id: string): Promise<void> {
  if (!(await identities.findUserById(id))) {
    throw new NotFoundProvisioningError(`no user "${id}"`);
  }
}

export function noOrganization(id: string): NotFoundProvisioningError {
  return new NotFoundProvisioningError(`no organization "${id}"`);
}
