import type { CoreContext, LinkEvents } from '../context';
import type { LinkDisabling, LinkRecord } from '../ports/link-store';
import { linkNotFound } from './link-reference';

/** The longest reason a link may be disabled with. */
export const MAX_DISABLE_REASON_LENGTH = 500;

/** Who changed a link's state, for the metrics: a member (the core's procedures) or the CLI. */
type LinkChangeSource = Parameters<LinkEvents['stateChanged']>[1];

/**
 * Disables (`disabling`) or enables (`null`) `link`, as the store decides atomically; a link
 * already in that state is left as it is. Answers the link as it now is; `changed` reports
 * whether this call changed it (a state change is then announced to `deps.linkEvents`).
 */
export async function setLinkState(
  deps: Pick<CoreContext['deps'], 'store' | 'linkEvents'>,
  link: Pick<LinkRecord, 'id'>,
  disabling: LinkDisabling | null,
  source: LinkChangeSource,
): Promise<{ link: LinkRecord; changed: boolean }> {
  const outcome = await deps.store.links.setDisabled(link.id, disabling);
  // Links are never deleted: a link found a moment ago is still there.
  if (!outcome) throw linkNotFound();
  if (outcome.changed) deps.linkEvents?.stateChanged(disabling ? 'disabled' : 'enabled', source);
  return outcome;
}
