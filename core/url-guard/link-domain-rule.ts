import type { LinkDomainSource } from './link-domain-source';
import { block, pass, type UrlRule } from './rule';

/** Refuses a URL that points back at one of this service's own link domains (a loop). */
export function createLinkDomainRule(source: LinkDomainSource): UrlRule {
  return {
    name: 'link-domain',
    async check(url) {
      const domains = await source.current();
      return domains.includes(url)
        ? block("the host is one of this service's own link domains (a link to a link)")
        : pass;
    },
  };
}
