import { DomainSet } from './domain-set';
import { bareHostname, normalizeDomainEntry } from './host';
import { block, pass, type UrlRule } from './rule';

/** Refuses other link shorteners (BLOCKED_SHORTENER_DOMAINS) and their subdomains. */
export function createShortenerRule(domains: readonly string[]): UrlRule {
  const set = new DomainSet(
    domains.map((domain) => {
      const normalized = normalizeDomainEntry(domain);
      if (normalized === null) throw new Error(`not a domain: "${domain}"`);
      return normalized;
    }),
  );
  return {
    name: 'shortener',
    check: (url) =>
      Promise.resolve(
        set.covers(bareHostname(url))
          ? block('the host is another link shortener, which would hide the real destination')
          : pass,
      ),
  };
}
