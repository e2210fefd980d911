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
 * Views made, by record: the link cache hands out the same record for every follow until it
 * reloads it (as follow-policy.ts's parsed targets rely on), so a hot link's view, its ISO times
 * above all, is made once per reload rather than once per follow. Records are never changed once
 * handed out; each caller still gets an object of its own.
 */
const views = new WeakMap<LinkRecord, LinkView>();

/** `visitCount`: the link's visit total, when the procedure read it (links.get, links.list). */
export function toLinkView(link: LinkRecord, visitCount?: number): LinkView {
  let view = views.get(link);
  if (view === undefined) {
    view = makeLinkView(link);
    views.set(link, view);
  }
  return visitCount === undefined ? { ...view } : { ...view, visit_count: visitCount };
}

/** Every field named (EveryField): a field added to LinkView fails the compiler here. */
function makeLinkView(link: LinkRecord): LinkView {
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
    // Added by toLinkView, per call: a total is no part of the record.
    visit_count: undefined,
  };
  return withoutAbsent(view);
}
