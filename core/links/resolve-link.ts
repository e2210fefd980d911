import { z } from 'zod';
import type { CoreContext } from '../context';
import { addressKeyOf } from '../auth/address-key';
import { expectedFailure, ShortlinkError } from '../errors/shortlink-error';
import { ProcedureBuilder } from '../procedure/procedure';
import { isAlias } from './create-link-input';
import { MAX_HOST_HEADER_LENGTH } from './long-url';
import { followRefusal, refusalFailure } from './follow-policy';
import { toLinkView, type LinkView } from './link-view';
import type { LinkRecord, LinkStore } from '../ports/link-store';
import type { RateLimitDecision, RateLimiter } from '../ports/rate-limiter';
import { retryAfterSeconds } from '../errors/retry-after';
import { domainCandidates, findLinkUnderHost, type DomainCandidate } from './link-host';
import { isLikelyBot } from '../visits/likely-bot';

const resolveLinkSchema = z.object({
  domain: z.string().min(1).max(MAX_HOST_HEADER_LENGTH),
  // An alias no link can have names none: answered without a read.
  alias: z.string().refine(isAlias),
  /**
   * The follow is a visit: a redirect is answered when the link may be followed (REST GET; not a
   * HEAD, not a lookup). A link with max_visits counts it, and refuses it once none is left.
   */
  visit: z.boolean().optional(),
  /** The follower's User-Agent, for a visit: only whether it is likely a bot is kept. */
  userAgent: z.string().optional(),
});

export type ResolveLinkRequest = z.input<typeof resolveLinkSchema>;

const notFound = () => expectedFailure('NOT_FOUND', 'No short link with this alias.');

/**
 * A client past its budget of unknown aliases: RATE_LIMITED, with the seconds until its window
 * resets.
 */
function tooManyMisses(refusal: RateLimitDecision): ShortlinkError {
  const seconds = retryAfterSeconds(refusal.resetAt);
  return new ShortlinkError(
    'RATE_LIMITED',
    'Too many unknown short links from this address; slow down.',
    { retryAfterSeconds: seconds },
  );
}

/** The follow-miss budget and the key this request's client counts under; null: not limited. */
function missBudgetOf(ctx: CoreContext): { limiter: RateLimiter; key: string } | null {
  const limiter = ctx.deps.followMissLimiter;
  const address = ctx.request.clientAddress;
  return limiter && address !== undefined ? { limiter, key: addressKeyOf(address) } : null;
}

/**
 * `links.resolve`: the link behind (domain, alias), for following it. Public: following a link
 * needs no credentials. The domain is read as a Host (see domainCandidates: any case, IDN, a
 * trailing dot, a scheme's default port), and resolved in memory to the stored domain its link
 * can be under (the link domain directory), so a lookup reads the store once: an unknown alias
 * costs one read, not one per form of the Host. The alias is compared exactly. A link found but
 * not to be followed (disabled, its organization inactive, its target now refused) is
 * LINK_DISABLED, whatever the reason; one past its expiry or out of visits is LINK_EXPIRED
 * (follow-policy.ts). Only a resolve that is a visit (`visit: true`) counts one against
 * max_visits, and one in the link's visits (humans or likely bots, by `userAgent`).
 *
 * Unknown aliases are limited per client address (IPv6 by its /64, and its /56 and /48 each with a
 * budget of its own: network-budgets.ts), as failed token checks are:
 * a lookup that finds nothing is counted after the read, atomically, and the count decides
 * between NOT_FOUND and RATE_LIMITED. An address the limiter knows to be past its budget is refused
 * before any read (RATE_LIMITED), unless the link is one the store holds without a read (the link
 * cache's): a scanner past its budget costs the store nothing, and a popular link still answers
 * everyone behind a shared address. A link found counts nothing; a caller with no client address is
 * not limited.
 */
export const resolveLink = ProcedureBuilder.create<CoreContext>()
  .input(resolveLinkSchema, () => notFound())
  .query(async ({ ctx, input }): Promise<LinkView> => {
    const candidates = domainCandidates(input.domain);
    if (!candidates) throw notFound();
    const budget = missBudgetOf(ctx);
    const refusal = budget?.limiter.knownRefusal?.(budget.key);
    let link: LinkRecord | null;
    if (refusal) {
      const domains = ctx.following.domains.knownNow(candidates);
      link = findKnown(ctx.deps.store.links, domains, input.alias) ?? null;
      if (!link) throw tooManyMisses(refusal);
    } else {
      const domains = await ctx.following.domains.domainsToRead(candidates);
      link = await findLinkUnderHost(ctx.deps.store.links, domains, input.alias);
    }
    if (!link) {
      const decision = budget && (await budget.limiter.consume(budget.key));
      throw decision && !decision.allowed ? tooManyMisses(decision) : notFound();
    }
    const refused = await followRefusal(ctx, link, input.visit === true);
    if (refused !== null) {
      ctx.request.logger?.debug({ link: link.id, refusal: refused }, 'link not followed');
      throw refusalFailure(refused, notFound);
    }
    // Counted in memory only (core/visits/): the store hears of it within a flush interval.
    if (input.visit === true) ctx.deps.visitCounter.record(link.id, isLikelyBot(input.userAgent));
    return toLinkView(link);
  });

/**
 * What findLinkUnderHost would answer, from what the store holds without a read; undefined as soon as a
 * domain it would read first cannot be told without one (a cache holds found links only).
 */
function findKnown(
  links: LinkStore,
  domains: readonly DomainCandidate[],
  alias: string,
): LinkRecord | undefined {
  if (!links.findKnownByAlias) return undefined;
  for (const { domain, scheme } of domains) {
    const link = links.findKnownByAlias(domain, alias);
    if (link === undefined) return undefined;
    if (scheme === undefined || link.scheme === scheme) return link;
  }
  return undefined;
}
