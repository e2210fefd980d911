import type { UrlRule } from '../url-guard/rule';
import type { ShortlinkMetrics } from './shortlink-metrics';

/** The rule with its refusals counted in `shortlink_url_guard_refusals_total{rule}`. */
export function countedUrlRule(rule: UrlRule, metrics: ShortlinkMetrics): UrlRule {
  const refused = metrics.urlRefusedBy(rule.name);
  return {
    name: rule.name,
    async check(url, context) {
      const verdict = await rule.check(url, context);
      if (verdict.blocked) refused();
      return verdict;
    },
  };
}
