import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import type { LinkActing, LinkChangeOutcome, LinkDisabling, LinkRecord } from '../ports/link-store';
import { linkNotFound } from './link-reference';

/** The longest reason a link may be disabled with. */
export const MAX_DISABLE_REASON_LENGTH = 500;

/** A member's change of a link the operator or a rescan disabled: LINK_HELD, nothing changed. */
export const linkHeld = () => new ShortlinkError('LINK_HELD');

/**
 * What a change of a link answered, for the procedure: a link gone (never: links are never
 * deleted, but the id came from a read a moment ago) is NOT_FOUND, a held one LINK_HELD.
 */
export function changedLink(outcome: LinkChangeOutcome | 'held' | null): LinkChangeOutcome {
  if (outcome === 'held') throw linkHeld();
  if (!outcome) throw linkNotFound();
  return outcome;
}

/**
 * Disables (`disabling`) or enables (`null`) `link`, as the store decides atomically; a link
 * already in that state is left as it is. Answers the link as it now is; `changed` reports
 * whether this call changed it (a state change is then announced to `deps.linkEvents`). A
 * member's enable of a link the operator or a rescan disabled is LINK_HELD.
 */
export async function setLinkState(
  deps: Pick<CoreContext['deps'], 'store' | 'linkEvents'>,
  link: Pick<LinkRecord, 'id'>,
  disabling: LinkDisabling | null,
  acting: LinkActing,
): Promise<LinkChangeOutcome> {
  const outcome = changedLink(await deps.store.links.setDisabled(link.id, disabling, acting));
  if (outcome.changed) deps.linkEvents?.stateChanged(disabling ? 'disabled' : 'enabled');
  return outcome;
}
