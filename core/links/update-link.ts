import { isHeldByOperator } from '../ports/link-store';
import { guardUrl } from './create-link';
import { argumentsError, governingProcedure } from './governing-procedure';
import { memberActing } from './link-actor';
import { findLinkOf } from './link-reference';
import { toLinkView, type LinkView } from './link-view';
import { changedLink, linkHeld } from './set-link-state';
import { readUpdateFields, updateArguments } from './update-link-input';

/**
 * `links.update`: changes the fields given (url, redirect_type, expires_at, max_visits; never the
 * alias) and keeps the change in the link's history, by `user:<id>`. After the governing stages:
 * the arguments (ARGUMENT_INVALID: the link named, at least one field), the fields (the create's
 * codes, every failing field reported), the link (NOT_FOUND), the hold (LINK_HELD: a link the
 * operator or a rescan disabled), then a new url's anti-phishing check (URL_BLOCKED), so a
 * reputation lookup is spent only on a link the caller may change. The store applies the edit
 * and decides the hold again in one atomic write: a takedown made meanwhile still wins.
 */
export const updateLink = governingProcedure
  .input(updateArguments, argumentsError)
  .mutation(async ({ ctx, input }): Promise<LinkView> => {
    const acting = memberActing(ctx);
    const { edit, url } = readUpdateFields(input.values, acting.at);
    const link = await findLinkOf(ctx.deps.store.links, ctx.organization, input.reference);
    if (isHeldByOperator(link)) throw linkHeld();
    if (url) await guardUrl(ctx, url);
    const outcome = changedLink(await ctx.deps.store.links.update(link.id, edit, acting));
    return toLinkView(outcome.link);
  });
