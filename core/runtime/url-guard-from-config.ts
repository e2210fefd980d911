import { silentLogger, type Logger } from '../ports/logger';
import type { Store } from '../ports/store';
import type { UrlGuard } from '../ports/url-guard';
import { BlocklistFile } from '../url-guard/blocklist-file';
import { createBlocklistRule } from '../url-guard/blocklist-rule';
import { credentialsRule } from '../url-guard/credentials-rule';
import { createLinkDomainRule } from '../url-guard/link-domain-rule';
import { LinkDomainSource } from '../url-guard/link-domain-source';
import { mixedScriptRule } from '../url-guard/mixed-script-rule';
import { privateTargetRule } from '../url-guard/private-target-rule';
import { createReputationRule } from '../url-guard/reputation-rule';
import type { UrlRule } from '../url-guard/rule';
import { SafeBrowsingClient } from '../url-guard/safe-browsing/safe-browsing-client';
import { createShortenerRule } from '../url-guard/shortener-rule';
import { createUrlGuardChain } from '../url-guard/url-guard-chain';
import type { ShortlinkMetrics } from '../metrics/shortlink-metrics';
import { wholeScriptRule } from '../url-guard/whole-script-rule';
import { ConfigError, type Config } from './config';

export interface ConfiguredUrlGuard {
  guard: UrlGuard;
  /**
   * The rules a link's target must still pass to be followed: the service's own link domains,
   * blocked shorteners and the blocklist file (as re-read). Local only: no network lookup.
   */
  followGuard: UrlGuard;
  /** Makes the next check reload the link domains (call after provisioning in this process). */
  linkDomainsChanged(): void;
  close(): Promise<void>;
}

/**
 * The anti-phishing chain: credentials, own link domains, other shorteners, the blocklist file,
 * private targets (unless ALLOW_PRIVATE_TARGETS), mixed scripts, whole-script look-alikes, then (when SAFE_BROWSING_URL is set) the reputation lookup. Local rules run
 * first so a refused URL never costs a call to the service.
 */
export async function createUrlGuardFromConfig(
  config: Config,
  logger: Logger,
  store: Store,
  /** When given, each rule's refusals and the reputation lookups are counted. */
  metrics?: ShortlinkMetrics,
): Promise<ConfiguredUrlGuard> {
  const closers: Array<() => Promise<void> | void> = [];
  const linkDomains = new LinkDomainSource(store.identities, {
    refreshMs: config.LINK_DOMAINS_REFRESH_SECONDS * 1000,
    logger,
  });
  const rules: UrlRule[] = [credentialsRule, createLinkDomainRule(linkDomains)];
  const followRules: UrlRule[] = [createLinkDomainRule(linkDomains)];

  if (config.BLOCKED_SHORTENER_DOMAINS.length > 0) {
    try {
      const shortenerRule = createShortenerRule(config.BLOCKED_SHORTENER_DOMAINS);
      rules.push(shortenerRule);
      followRules.push(shortenerRule);
    } catch (error) {
      throw new ConfigError(`BLOCKED_SHORTENER_DOMAINS: ${(error as Error).message}`);
    }
  }

  if (config.URL_BLOCKLIST_FILE) {
    let file: BlocklistFile;
    try {
      file = await BlocklistFile.open(config.URL_BLOCKLIST_FILE, {
        pollMs: config.URL_BLOCKLIST_POLL_MS,
        logger,
      });
    } catch (error) {
      throw new ConfigError(`URL_BLOCKLIST_FILE: ${(error as Error).message}`);
    }
    closers.push(() => file.close());
    const blocklistRule = createBlocklistRule(file);
    rules.push(blocklistRule);
    followRules.push(blocklistRule);
  }

  if (!config.ALLOW_PRIVATE_TARGETS) rules.push(privateTargetRule);
  rules.push(mixedScriptRule, wholeScriptRule);

  if (config.SAFE_BROWSING_URL) {
    const client = new SafeBrowsingClient({
      baseUrl: config.SAFE_BROWSING_URL,
      apiKey: config.SAFE_BROWSING_KEY,
      threatTypes: config.SAFE_BROWSING_THREAT_TYPES,
      perMinute: config.SAFE_BROWSING_PER_MINUTE,
      maxConcurrent: config.SAFE_BROWSING_CONCURRENCY,
      timeoutMs: config.SAFE_BROWSING_TIMEOUT_MS,
      maxWaitMs: config.SAFE_BROWSING_MAX_WAIT_MS,
      cleanCacheMs: config.SAFE_BROWSING_CLEAN_CACHE_SECONDS * 1000,
      cacheEntries: config.SAFE_BROWSING_CACHE_ENTRIES,
      logger,
      observer: metrics && { lookedUp: (result) => metrics.safeBrowsingLookup(result) },
    });
    metrics?.followSafeBrowsingQueue(() => client.queued());
    closers.push(() => client.close());
    rules.push(createReputationRule(client, config.SAFE_BROWSING_FAIL));
    logger.info(
      { service: new URL(config.SAFE_BROWSING_URL).origin, failMode: config.SAFE_BROWSING_FAIL },
      'reputation lookup enabled',
    );
  }

  return {
    guard: createUrlGuardChain(rules, logger, metrics && ((rule) => metrics.urlRefusedBy(rule))),
    // Not logged per refusal: every follow of a refused link would log a line (its 410 is in the
    // request log).
    followGuard: createUrlGuardChain(followRules, silentLogger),
    linkDomainsChanged: () => linkDomains.invalidate(),
    close: async () => {
      for (const close of closers.reverse()) await close();
    },
  };
}
