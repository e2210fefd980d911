import { z } from 'zod';
import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import { ProcedureBuilder } from '../procedure/procedure';
import { MAX_ALIAS_LENGTH } from './create-link-input';
import { toShortLink, type ShortLink } from './short-link';

export const resolveLinkSchema = z.object({
  domain: z.string().min(1).max(255),
  alias: z.string().min(1).max(MAX_ALIAS_LENGTH),
});

export type ResolveLinkRequest = z.input<typeof resolveLinkSchema>;

const notFound = () => new ShortlinkError('NOT_FOUND', 'No short link with this alias.');

/**
 * `links.resolve`: the link behind (domain, alias), for following it. Public: following a link
 * needs no credentials. The domain is compared case-insensitively, the alias exactly.
 */
export const resolveLink = ProcedureBuilder.create<CoreContext>()
  .input(resolveLinkSchema, () => notFound())
  .query(async ({ ctx, input }): Promise<ShortLink> => {
    const link = await ctx.deps.store.links.findByAlias(input.domain.toLowerCase(), input.alias);
    if (!link) throw notFound();
    return toShortLink(link);
  });
