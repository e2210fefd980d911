import type { CoreContext } from '../context';
import { expectedFailure } from '../errors/shortlink-error';
import type { LinkRecord } from '../ports/link-store';

/** Why a link is not followed; for operators (logs), never for the follower. */
type FollowRefusal = 'disabled' | 'organization_inactive' | 'target_refused';

/**
 * Whether `link` may be followed now: it is active, its organization is active, and its target
 * still passes the local anti-phishing rules (the blocklist file as re-read, blocked shorteners,
 * the service's own link domains; no network lookup). The organization comes from the identity
 * cache, which trusts an organization no longer than the change propagation bound.
 */
export async function followRefusal(
  ctx: CoreContext,
  link: LinkRecord,
): Promise<FollowRefusal | null> {
  if (link.disabled) return 'disabled';
  const organization = await ctx.deps.store.identities.findOrganizationById(link.organizationId);
  if (!organization?.active) return 'organization_inactive';
  const target = targetOf(link);
  if (!target) return 'target_refused';
  const verdict = await ctx.deps.followGuard.check(target, { organization });
  return verdict.blocked ? 'target_refused' : null;
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

/** The follower's answer for every refusal alike (410, LINK_DISABLED): the reason stays inside. */
export const linkGone = () => expectedFailure('LINK_DISABLED');
