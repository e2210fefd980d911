import { argumentsError, argumentsSchema, governingProcedure } from './governing-procedure';
import { findLinkOf, readLinkReference, type LinkReference } from './link-reference';
import { linkReferenceArguments } from './get-link';
import { toLinkView, type LinkView } from './link-view';
import { ownField } from '../procedure/raw-input';
import { MAX_DISABLE_REASON_LENGTH, setLinkState } from './set-link-state';
import { memberActing } from './link-actor';

/** What an in-process caller passes to `links.disable`. */
export interface DisableLinkRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
  /** Why (1 to 500 characters once trimmed); for the organization and operators only. */
  reason: string;
}

/** What an in-process caller passes to `links.enable`. */
export interface EnableLinkRequest {
  organization_key: string;
  id?: number | string | null;
  alias?: string | null;
}

/** A reason given: trimmed, 1 to MAX_DISABLE_REASON_LENGTH characters; else what is wrong. */
export function readReason(raw: unknown): string | { problem: string } {
  if (typeof raw !== 'string' || raw.trim() === '') {
    return { problem: 'reason is required: say why the link is disabled.' };
  }
  const reason = raw.trim();
  if (reason.length > MAX_DISABLE_REASON_LENGTH) {
    return { problem: `reason must be at most ${MAX_DISABLE_REASON_LENGTH} characters.` };
  }
  return reason;
}

const disableArguments = argumentsSchema<{ reference: LinkReference; reason: string }>((body) => {
  const reference = readLinkReference(body);
  const reason = readReason(ownField(body, 'reason'));
  const problems = [
    ...(typeof reference === 'string' ? [reference] : []),
    ...(typeof reason === 'string' ? [] : [reason.problem]),
  ];
  if (typeof reference === 'string' || typeof reason !== 'string') return { problems };
  return { reference, reason };
});

/**
 * `links.disable`: the link stops being followed (410, LINK_DISABLED) on every process within the
 * propagation bound; its alias stays its own. The reason, the time and the caller's user id are
 * recorded. Disabling a disabled link changes nothing (its first reason stands).
 */
export const disableLink = governingProcedure
  .input(disableArguments, argumentsError)
  .mutation(async ({ ctx, input }): Promise<LinkView> => {
    const link = await findLinkOf(ctx.deps.store.links, ctx.organization, input.reference);
    const acting = memberActing(ctx);
    const disabling = { reason: input.reason, at: acting.at, by: acting.by };
    const outcome = await setLinkState(ctx.deps, link, disabling, acting);
    return toLinkView(outcome.link);
  });

/**
 * `links.enable`: the link is followed again; enabling an active link changes nothing. A link the
 * operator or a rescan disabled stays so (LINK_HELD): only the operator's CLI lifts it.
 */
export const enableLink = governingProcedure
  .input(linkReferenceArguments, argumentsError)
  .mutation(async ({ ctx, input }): Promise<LinkView> => {
    const link = await findLinkOf(ctx.deps.store.links, ctx.organization, input);
    const outcome = await setLinkState(ctx.deps, link, null, memberActing(ctx));
    return toLinkView(outcome.link);
  });
