import { GroupExistsError } from '../errors/shortlink-error';
import type { IdentityStore, UrlGroup } from '../ports/identity-store';
import { ProvisioningError } from './provisioning-error';
import { requireId } from './provisioning-input';
import { requireOrganization } from './required-records';

export interface NewGroup {
  organizationId: string;
  apiId: string;
  name?: string;
}

/** A group written whether it exists or not; a name left out keeps the stored one. */
export async function saveGroup(identities: IdentityStore, input: NewGroup): Promise<UrlGroup> {
  await requireOrganization(identities, input.organizationId);
  const apiId = requireId(input.apiId, 'group api id');
  const stored =
    input.name === undefined ? await identities.findGroup(input.organizationId, apiId) : null;
  const group: UrlGroup = {
    organizationId: input.organizationId,
    apiId,
    name: input.name ?? stored?.name ?? apiId,
  };
  await identities.saveGroup(group);
  return group;
}

/**
 * A new group; refuses one that exists in the organization. The store checks it in the same
 * atomic write, so of two concurrent creates of one group one wins and the other writes nothing.
 */
export async function createGroup(identities: IdentityStore, input: NewGroup): Promise<UrlGroup> {
  const apiId = requireId(input.apiId, 'group api id');
  await requireOrganization(identities, input.organizationId);
  const group: UrlGroup = {
    organizationId: input.organizationId,
    apiId,
    name: input.name ?? apiId,
  };
  try {
    await identities.insertGroup(group);
  } catch (error) {
    if (!(error instanceof GroupExistsError)) throw error;
    throw new ProvisioningError(error.message, { cause: error });
  }
  return group;
}
