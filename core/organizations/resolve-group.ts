import { ShortlinkError } from '../errors/shortlink-error';
import { z } from 'zod';
import type { Middleware } from '../procedure/procedure';
import { lookUpField } from './look-up-field';
import { MAX_ID_LENGTH, type UrlGroup } from '../ports/identity-store';
import type { OrganizationContext } from './resolve-organization';

/** `url_group_id`: a group's id, as text or as a non-negative integer (read as its digits). */
export const urlGroupIdSchema = z.union([
  z.string().min(1),
  z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).transform(String),
]);

export const groupNotFound = () => new ShortlinkError('URL_GROUP_NOT_FOUND');

export interface GroupContext extends OrganizationContext {
  group: UrlGroup;
}

/**
 * Stage "group" (URL_GROUP_ID_MISSING, URL_GROUP_NOT_FOUND): `url_group_id` must name a group of
 * the resolved organization.
 */
export const resolveGroup: Middleware<OrganizationContext, Pick<GroupContext, 'group'>> = async ({
  ctx,
  rawInput,
  next,
}) => {
  const group = await lookUpField(
    rawInput,
    'url_group_id',
    urlGroupIdSchema,
    'URL_GROUP_ID_MISSING',
    // An id longer than any group can have names none: it is not looked up. LMDB keys a group by
    // (organization, api id) in at most 1978 bytes, and a longer key failed there (INTERNAL).
    (apiId) =>
      apiId.length > MAX_ID_LENGTH
        ? Promise.resolve(null)
        : ctx.deps.store.identities.findGroup(ctx.organization.id, apiId),
  );
  if (!group) throw groupNotFound();
  return next({ group });
};
