import type { AuthenticatedContext } from '../auth/authenticate';
import { hashSecret } from '../auth/secrets';
import { ShortlinkError } from '../errors/shortlink-error';
import { z } from 'zod';
import type { Middleware } from '../procedure/procedure';
import { lookUpField } from './look-up-field';
import type { Organization } from '../ports/identity-store';

/** `organization_key`: the organization's secret key, any non-empty text (its hash is looked up). */
export const organizationKeySchema = z.string().min(1);

export interface OrganizationContext extends AuthenticatedContext {
  organization: Organization;
}

/**
 * Stages "organization key missing" (ORGANIZATION_KEY_MISSING) and "organization"
 * (ORGANIZATION_KEY_INVALID, ORGANIZATION_INACTIVE, NOT_A_MEMBER): the key must name an active
 * organization the token's user belongs to. Adds the organization to the context.
 */
export const resolveOrganization: Middleware<
  AuthenticatedContext,
  Pick<OrganizationContext, 'organization'>
> = async ({ ctx, rawInput, next }) => {
  const organization = await lookUpField(
    rawInput,
    'organization_key',
    organizationKeySchema,
    'ORGANIZATION_KEY_MISSING',
    (key) => ctx.deps.store.identities.findOrganizationByKeyHash(hashSecret(key)),
  );
  if (!organization) throw new ShortlinkError('ORGANIZATION_KEY_INVALID');
  if (!organization.active) throw new ShortlinkError('ORGANIZATION_INACTIVE');
  if (!(await ctx.deps.store.identities.isMember(ctx.userId, organization.id))) {
    throw new ShortlinkError('NOT_A_MEMBER');
  }
  return next({ organization });
};
