import { linkStateOf, type LinkRecord, type LinkState } from '../ports/link-store';
import { toShortLink, type ShortLink } from './short-link';

/**
 * A link as the reading and governing procedures (and following) answer it: the spec's fields,
 * plus its group, its state and its times. Times are ISO 8601 text (UTC), as every transport
 * shows them. The disabled fields are present only while the link is disabled.
 */
export interface LinkView extends ShortLink {
  url_group_id: string;
  state: LinkState;
  created_at: string;
  disabled_reason?: string;
  disabled_at?: string;
  /** Who disabled it: a user's id, or `admin` (the operator's CLI). */
  disabled_by?: string;
}

export function toLinkView(link: LinkRecord): LinkView {
  const view: LinkView = {
    ...toShortLink(link),
    url_group_id: link.groupApiId,
    state: linkStateOf(link),
    created_at: link.createdAt.toISOString(),
  };
  if (link.disabled) {
    view.disabled_reason = link.disabled.reason;
    view.disabled_at = link.disabled.at.toISOString();
    view.disabled_by = link.disabled.by;
  }
  return view;
}
