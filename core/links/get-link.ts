import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { findLinkOf, readLinkReference, type LinkReference } from './link-reference';
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
 * link domain, with its state. Another organization's link is NOT_FOUND, as one that does not
 * exist.
 */
export const getLink = governingProcedure
  .input(linkReferenceArguments, argumentsError)
  .query(async ({ ctx, input }): Promise<LinkView> =>
    toLinkView(await findLinkOf(ctx.deps.store.links, ctx.organization, input)),
  );
