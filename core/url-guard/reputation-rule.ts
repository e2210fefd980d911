import { ShortlinkError } from '../errors/shortlink-error';
import { block, blockUndecided, pass, type UrlRule } from './rule';
import type { Reputation } from './safe-browsing/safe-browsing-client';

export type FailMode = 'open' | 'closed';

/**
 * Asks the reputation service; when it gives no verdict (unreachable, timeout, error status)
 * the fail mode decides: `open` lets the URL through, `closed` refuses it (URL_BLOCKED, marked
 * undecided: an idempotency key is released rather than bound to it). A used-up quota is
 * neither: the request is answered "unavailable, retry after" (BACKEND_UNAVAILABLE), since letting
 * it through would let anyone switch the check off by spending the quota on unique URLs, and
 * refusing it would call a URL nobody judged a threat.
 */
export function createReputationRule(
  client: { lookup(url: string, organizationId: string): Promise<Reputation> },
  failMode: FailMode,
): UrlRule {
  return {
    name: 'reputation',
    async check(url, context) {
      const reputation = await client.lookup(url.href, context.organization.id);
      switch (reputation.kind) {
        case 'clean':
          return pass;
        case 'threat':
          return block(
            `reported by the reputation service as ${reputation.threatType ?? 'a threat'}`,
          );
        case 'quota': {
          const seconds = Math.max(1, Math.ceil(reputation.retryAfterMs / 1000));
          throw new ShortlinkError(
            'BACKEND_UNAVAILABLE',
            `The URL reputation check is at its quota; retry in ${seconds} s.`,
            { retryAfterSeconds: seconds },
          );
        }
        case 'unavailable':
          return failMode === 'open'
            ? pass
            : blockUndecided('the reputation service could not check it; please try again later');
      }
    },
  };
}
