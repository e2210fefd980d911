import type { CoreContext } from '../context';
import { expectedFailure, type ShortlinkError } from '../errors/shortlink-error';
import type { LinkRecord } from '../ports/link-store';

/** Why a link is not followed; for operators (logs), never for the follower. */
type FollowRefusal =
  'disabled' | 'organization_inactive' | 'target_refused' | 'expired' | 'visits_used' | 'gone';

/**
 * Whether `link` may be followed now, checked in this order: it is active, its organization is
 * active, and its target still passes the local anti-phishing rules (the blocklist file as
 * re-read, blocked shorteners, the service's own link domains; no network lookup) — else
 * LINK_DISABLED; then its limits (limitRefusal) — else LINK_EXPIRED. The organization comes from
 * the identity cache, which trusts an organization no longer than the change propagation bound.
 * `visit`: the follow is a visit (a redirect is answered if the link may be followed), which a
 * link with max_visits counts.
 */
export async function followRefusal(
  ctx: CoreContext,
  link: LinkRecord,
  visit: boolean,
): Promise<FollowRefusal | null> {
  if (link.disabled) return 'disabled';
  const organization = await ctx.deps.store.identities.findOrganizationById(link.organizationId);
  if (!organization?.active) return 'organization_inactive';
  const target = targetOf(link);
  if (!target) return 'target_refused';
  const verdict = await ctx.deps.followGuard.check(target, { organization });
  if (verdict.blocked) return 'target_refused';
  return limitRefusal(ctx, link, visit);
}

/**
 * A link's limits: past its expiresAt by the core's clock ('expired'); then, for a link with
 * maxVisits only, its visits. A link without limits costs nothing here (no clock, no store call).
 * A visit takes one of its visits atomically in the store ('visits_used' once none is left, 'gone'
 * when the link no longer exists); anything else (a HEAD, a lookup) counts nothing and reads the
 * visits of the link as read, which a cached link holds for at most the change propagation bound.
 * A link read as out of visits is refused without a write: visits only grow, and a raised limit is
 * an edit, seen within that bound.
 */
function limitRefusal(
  ctx: CoreContext,
  link: LinkRecord,
  visit: boolean,
): FollowRefusal | null | Promise<FollowRefusal | null> {
  const { expiresAt, maxVisits } = link;
  if (expiresAt !== undefined && ctx.deps.clock.now().getTime() >= expiresAt.getTime()) {
    return 'expired';
  }
  if (maxVisits === undefined) return null;
  if ((link.visits ?? 0) >= maxVisits) return 'visits_used';
  if (!visit) return null;
  return ctx.deps.store.links
    .takeVisit(link.id)
    .then((taken) => (taken === 'counted' ? null : taken === 'exhausted' ? 'visits_used' : 'gone'));
}

/**
 * A link's target, parsed once per record: the link cache hands out the same record for every
 * follow until it reloads it, so a hot link's URL is not parsed again on each follow. The rules
 * only read it.
 */
const parsedTargets = new WeakMap<LinkRecord, URL | null>();

function targetOf(link: LinkRecord): URL | null {
  let target = parsedTargets.get(link);
  if (target === undefined) {
    target = URL.parse(link.url);
    parsedTargets.set(link, target);
  }
  return target;
}

/**
 * The follower's answer to a refusal: LINK_DISABLED (410) for every reason of the link's state
 * alike, LINK_EXPIRED (410) for its limits, NOT_FOUND for a link that no longer exists. The reason
 * itself stays inside.
 */
export function refusalFailure(
  refusal: FollowRefusal,
  notFound: () => ShortlinkError,
): ShortlinkError {
  switch (refusal) {
    case 'disabled':
    case 'organization_inactive':
    case 'target_refused':
      return expectedFailure('LINK_DISABLED');
    case 'expired':
    case 'visits_used':
      return expectedFailure('LINK_EXPIRED');
    case 'gone':
      return notFound();
  }
}
