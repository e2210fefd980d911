import { block, pass, type UrlRule } from './rule';
import type { Reputation } from './safe-browsing/safe-browsing-client';

export type FailMode = 'open' | 'closed';

/**
 * Asks the reputation service; when it gives no verdict (unreachable, timeout, error status,
 * quota) the fail mode decides: `open` lets the URL through, `closed` refuses it.
 */
export function createReputationRule(
  client: { lookup(url: string): Promise<Reputation> },
  failMode: FailMode,
): UrlRule {
  return {
    name: 'reputation',
    async check(url) {
      const reputation = await client.lookup(url.href);
      switch (reputation.kind) {
        case 'clean':
          return pass;
        case 'threat':
          return block(
            `reported by the reputation service as ${reputation.threatType ?? 'a threat'}`,
          );
        case 'unavailable':
          return failMode === 'open'
            ? pass
            : block('the reputation service could not check it; please try again later');
      }
    },
  };
}
