import type { Logger } from '../ports/logger';
import type { UrlGuard, UrlGuardContext, UrlVerdict } from '../ports/url-guard';
import { pass, type UrlRule } from './rule';

/**
 * Runs the rules in order and answers with the first refusal, naming its rule (`rule`: the
 * admin rescan records it). Cheap local rules come first, so a URL they refuse never costs a call
 * to the reputation service. `refusedBy`, when given, hears the name of each refusing rule (the
 * metrics count them): one call where a refusal is decided, rather than a wrapper around every
 * rule on every URL.
 */
export function createUrlGuardChain(
  rules: readonly UrlRule[],
  logger: Logger,
  refusedBy?: (rule: string) => void,
): UrlGuard {
  return {
    async check(url: URL, context: UrlGuardContext): Promise<UrlVerdict> {
      for (const rule of rules) {
        const verdict = await rule.check(url, context);
        if (verdict.blocked) {
          // The host only: query strings may carry the user's own secrets.
          logger.info(
            { rule: rule.name, host: url.host, organization: context.organization.id },
            'URL refused by the anti-phishing check',
          );
          refusedBy?.(rule.name);
          return { ...verdict, rule: rule.name };
        }
      }
      return pass;
    },
  };
}
