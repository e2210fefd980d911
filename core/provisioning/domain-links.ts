import { domainCandidates } from '../links/link-host';
import type { IdentityStore } from '../ports/identity-store';
import type { LinkStore } from '../ports/link-store';
import { ProvisioningError } from './provisioning-error';

/** What provisioning works on: the identities it writes, and the links it counts. */
export interface ProvisioningStores {
  identities: IdentityStore;
  links: Pick<LinkStore, 'countByDomain'>;
}

/**
 * Counting stops here: one link is enough to refuse, and a refusal only has to say how many
 * ("at least 10000 links" past it), so a domain with millions of links costs no more.
 */
const LINK_COUNT_LIMIT = 10_000;

/**
 * Refuses to move organization `id` off `from` (its stored domain; undefined for a new one) onto
 * `to`, when either holds links: the links of a domain are followed under it whoever holds it, so
 * a domain given to another organization (or left for another to take) would keep redirecting to
 * the first one's targets, which the new holder could neither read nor disable (24) nor take the
 * aliases of (15). A domain another organization holds now is left to the store's unique key
 * (LinkDomainTakenError). Counted before the write: a link created on `from` between the count
 * and the write (a create that read the organization just before) is caught by the count of a
 * later organization that would take `from`.
 */
export async function refuseDomainMoveWithLinks(
  stores: ProvisioningStores,
  id: string,
  from: string | undefined,
  to: string,
): Promise<void> {
  if (from === to) return;
  const held = new Set(await stores.identities.listLinkDomains());
  if (from !== undefined) {
    const links = await linksUnder(stores, held, from);
    if (links > 0) {
      throw new ProvisioningError(
        `organization "${id}" cannot move to link domain "${to}": link domain "${from}" holds ${linkCount(links)}; it stays with organization "${id}" (nothing was changed)`,
      );
    }
  }
  if (held.has(to)) return;
  const links = await linksUnder(stores, held, to);
  if (links > 0) {
    throw new ProvisioningError(
      `organization "${id}" cannot take link domain "${to}": it holds ${linkCount(links)} left by the organization that held it before, and a link domain holding links passes to no other organization (nothing was changed)`,
    );
  }
}

/**
 * The links a follow of `domain` reaches, up to LINK_COUNT_LIMIT: those stored under the domain
 * itself and under the other forms a Host naming it is read as (link-host.ts), which for a domain
 * without a port are the forms with a default port, the ones an older version stored links
 * under before provisioning dropped the port. A form that is an organization's own domain now
 * (`d.link:443` of an http organization) holds that organization's links, not older ones of
 * `domain`: it is left out.
 */
async function linksUnder(
  stores: ProvisioningStores,
  held: ReadonlySet<string>,
  domain: string,
): Promise<number> {
  const older = (domainCandidates(domain) ?? [])
    .map((candidate) => candidate.domain)
    .filter((form) => form !== domain && !held.has(form));
  let count = 0;
  for (const form of [domain, ...older]) {
    if (count >= LINK_COUNT_LIMIT) break;
    count += await stores.links.countByDomain(form, LINK_COUNT_LIMIT - count);
  }
  return count;
}

function linkCount(links: number): string {
  if (links >= LINK_COUNT_LIMIT) return `at least ${LINK_COUNT_LIMIT} links`;
  return links === 1 ? '1 link' : `${links} links`;
}
