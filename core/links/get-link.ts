import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { findLinkOf, readLinkReference, type LinkReference } from './link-reference';
import { visitCountsOf } from './link-visit-counts';
import { toLinkView, type LinkView } from './link-view';

/** What an in-process caller passes to `links.get`: the organization key and `id` or `alias`. */
export interface GetLinkRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
}

/** The arguments of a request naming one link (links.get, links.enable). */
export const linkReferenceArguments = argumentsSchema<LinkReference>((body) => {
  const reference = readLinkReference(body);
  return typeof reference === 'string' ? { problems: [reference] } : reference;
});

/**
 * `links.get`: one link of the caller's organization, by id or by alias on the organization's
 * link domain, with its state and its visit total (as the visit store holds it). Another
 * organization's link is NOT_FOUND, as one that does not exist.
 */
export const getLink = governingProcedure
  .input(linkReferenceArguments, argumentsError)
  .query(async ({ ctx, input }): Promise<LinkView> => {
    const link = await findLinkOf(ctx.deps.store.links, ctx.organization, input);
    const counts = await visitCountsOf(ctx.deps.store.visits, [link.id]);
    return toLinkView(link, counts.get(link.id));
  });
