import { linkStateOf, type EveryField, type LinkRecord, type LinkState } from '../ports/link-store';
import { actorOf } from './link-actor';
import { withoutAbsent } from './link-shape';
import { toShortLink, type ShortLink } from './short-link';

/**
 * A link as the reading and governing procedures (and following) answer it: the spec's fields,
 * plus its group, its state, its times and its limits. Times are ISO 8601 text (UTC), as every
 * transport shows them. The disabled fields are present only while the link is disabled, the
 * expiry and the limit only when the link has them.
 */
export interface LinkView extends ShortLink {
  url_group_id: string;
  state: LinkState;
  created_at: string;
  disabled_reason?: string;
  disabled_at?: string;
  /** Who disabled it: `user:<id>`, `admin` (the operator's CLI) or `rescan`. */
  disabled_by?: string;
  expires_at?: string;
  max_visits?: number;
  /**
   * Every redirect of the link since it was made, humans and bots (links.get and links.list
   * only; absent elsewhere). The visit store's count: up to VISITS_FLUSH_SECONDS behind the
   * follows. Not `max_visits`' counter, which only a link with a limit keeps.
   */
  visit_count?: number;
}

/**
 * Every field named (EveryField): a field added to LinkView fails the compiler here.
 * `visitCount`: the link's visit total, when the procedure read it (links.get, links.list).
 */
export function toLinkView(link: LinkRecord, visitCount?: number): LinkView {
  const { disabled } = link;
  const view: EveryField<LinkView> = {
    ...toShortLink(link),
    url_group_id: link.groupApiId,
    state: linkStateOf(link),
    created_at: link.createdAt.toISOString(),
    disabled_reason: disabled?.reason,
    disabled_at: disabled?.at.toISOString(),
    disabled_by: disabled && actorOf(disabled.by),
    expires_at: link.expiresAt?.toISOString(),
    max_visits: link.maxVisits,
    visit_count: visitCount,
  };
  return withoutAbsent(view);
}
