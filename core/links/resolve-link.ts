import { z } from 'zod';
import type { CoreContext } from '../context';
import { expectedFailure } from '../errors/shortlink-error';
import { ProcedureBuilder } from '../procedure/procedure';
import { isAlias } from './create-link-input';
import { MAX_HOST_HEADER_LENGTH } from './long-url';
import { followRefusal, linkGone } from './follow-policy';
import { toLinkView, type LinkView } from './link-view';
import type { LinkRecord, LinkStore } from '../ports/link-store';
import { domainCandidates, type DomainCandidate } from './link-host';

const resolveLinkSchema = z.object({
  domain: z.string().min(1).max(MAX_HOST_HEADER_LENGTH),
  // An alias no link can have names none: answered without a read.
  alias: z.string().refine(isAlias),
});

export type ResolveLinkRequest = z.input<typeof resolveLinkSchema>;

const notFound = () => expectedFailure('NOT_FOUND', 'No short link with this alias.');

/**
 * `links.resolve`: the link behind (domain, alias), for following it. Public: following a link
 * needs no credentials. The domain is read as a Host (see domainCandidates: any case, IDN, a
 * trailing dot, a scheme's default port), and resolved in memory to the stored domain its link
 * can be under (the link domain directory), so a lookup reads the store once: an unknown alias
 * costs one read, not one per form of the Host. The alias is compared exactly. A link found but
 * not to be followed (disabled, its organization inactive, its target now refused) is 28,
 * whatever the reason.
 */
export const resolveLink = ProcedureBuilder.create<CoreContext>()
  .input(resolveLinkSchema, () => notFound())
  .query(async ({ ctx, input }): Promise<LinkView> => {
    const candidates = domainCandidates(input.domain);
    if (!candidates) throw notFound();
    const domains = await ctx.following.domains.domainsToRead(candidates);
    const link = await findFirst(ctx.deps.store.links, domains, input.alias);
    if (!link) throw notFound();
    const refusal = await followRefusal(ctx, link);
    if (refusal !== null) {
      ctx.request.logger?.debug({ link: link.id, refusal }, 'link not followed');
      throw linkGone();
    }
    return toLinkView(link);
  });

/** The link `alias` names under the first of `domains` holding one of the domain's scheme. */
async function findFirst(
  links: LinkStore,
  domains: readonly DomainCandidate[],
  alias: string,
): Promise<LinkRecord | null> {
  for (const { domain, scheme } of domains) {
    const link = await links.findByAlias(domain, alias);
    if (link && (scheme === undefined || link.scheme === scheme)) return link;
  }
  return null;
}
