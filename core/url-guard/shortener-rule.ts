import { DomainSet } from './domain-set';
import { bareHostname, normalizeDomainEntry } from './host';
import { block, pass, type UrlRule } from './rule';

/** Refuses other link shorteners (BLOCKED_SHORTENER_DOMAINS) and their subdomains. */
export function createShortenerRule(domains: readonly string[]): UrlRule {
  const normalized = domains.map((domain) => normalizeDomainEntry(domain));
  const invalid = domains.filter((_, index) => normalized[index] === null);
  if (invalid.length > 0) throw new Error(`not a domain: ${invalid.join(', ')}`);
  const set = new DomainSet(normalized.filter((domain) => domain !== null));
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
