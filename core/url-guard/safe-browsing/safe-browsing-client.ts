import Bottleneck from 'bottleneck';
import type { Logger } from '../../ports/logger';
import { ExpiringCache } from './expiring-cache';
import { FairShareQuota } from './fair-share-quota';
import {
  LOOKUP_PATH,
  lookupRequestBody,
  readLookupAnswer,
  type LookupRequestOptions,
} from './lookup-protocol';

export interface SafeBrowsingOptions {
  /** Base URL of a Safe Browsing v4 compatible service, e.g. `https://safebrowsing.googleapis.com`. */
  baseUrl: string;
  /** Sent only to `baseUrl`, as the `key` query parameter; never logged. */
  apiKey?: string | undefined;
  threatTypes: readonly string[];
  platformTypes?: readonly string[];
  /**
   * The provider's quota: at most this many calls start per minute, each organization taking at
   * most a fair share of them (see FairShareQuota).
   */
  perMinute: number;
  maxConcurrent: number;
  /** Deadline of one call, answer body included. */
  timeoutMs: number;
  /** How long a check may wait for a free concurrency slot before it gives up. */
  maxWaitMs: number;
  /** How long a clean answer is trusted (the API states durations only for matches). */
  cleanCacheMs: number;
  /** How long a match is trusted when the answer states no cacheDuration. */
  defaultThreatCacheMs?: number;
  cacheEntries: number;
  logger: Logger;
  now?: () => number;
  /** Told how each lookup was answered (metrics); nothing about the URL is passed. */
  observer?: SafeBrowsingObserver;
}

/** How a lookup was answered: cache (or a call already running), a call, a failed call, or none. */
type LookupResult = 'cache_hit' | 'miss' | 'error' | 'throttled';

export interface SafeBrowsingObserver {
  lookedUp(result: LookupResult): void;
}

export type Reputation =
  | { kind: 'threat'; threatType: string | null }
  | { kind: 'clean' }
  /** No verdict because the quota (or the organization's share of it) is used up for now. */
  | { kind: 'quota'; retryAfterMs: number }
  /** No verdict: SAFE_BROWSING_FAIL decides. */
  | { kind: 'unavailable'; why: string };

const CLIENT = { clientId: 'shortlink', clientVersion: '0.1.0' };
const DEFAULT_THREAT_CACHE_MS = 300_000;

/**
 * Asks a Safe Browsing v4 compatible service about a URL. Calls go through a Bottleneck
 * limiter (concurrency) and a per-minute quota shared fairly between organizations; answers are cached
 * for the duration the service states (clean answers for `cleanCacheMs`); concurrent checks of
 * the same URL share one call. Failures are answers too (`unavailable`), never exceptions.
 */
export class SafeBrowsingClient {
  private readonly limiter: Bottleneck;
  private readonly cache: ExpiringCache<Reputation>;
  private readonly inFlight = new Map<string, Promise<Reputation>>();
  private readonly endpoint: URL;
  private readonly request: LookupRequestOptions;
  private readonly quota: FairShareQuota;

  constructor(private readonly options: SafeBrowsingOptions) {
    this.endpoint = new URL(`${options.baseUrl.replace(/\/+$/, '')}${LOOKUP_PATH}`);
    if (options.apiKey) this.endpoint.searchParams.set('key', options.apiKey);
    this.request = {
      ...CLIENT,
      threatTypes: options.threatTypes,
      platformTypes: options.platformTypes ?? ['ANY_PLATFORM'],
    };
    this.cache = new ExpiringCache(options.cacheEntries, options.now);
    this.quota = new FairShareQuota(options.perMinute, 60_000, options.now);
    this.limiter = new Bottleneck({ maxConcurrent: options.maxConcurrent });
    // Bottleneck reports failed jobs here; ours never throw, but an unlistened error would.
    this.limiter.on('error', (error: unknown) => {
      options.logger.warn({ err: error }, 'reputation limiter error');
    });
  }

  /** The reputation of `url`; a call made for it counts against `organizationId`'s share. */
  lookup(url: string, organizationId: string): Promise<Reputation> {
    const { observer } = this.options;
    const cached = this.cache.get(url);
    if (cached) {
      observer?.lookedUp('cache_hit');
      return Promise.resolve(cached);
    }
    const pending = this.inFlight.get(url);
    if (pending) {
      observer?.lookedUp('cache_hit');
      return pending;
    }
    // Decided now, not after a wait: the quota refills once a minute.
    const grant = this.quota.take(organizationId);
    if (!grant.granted) {
      this.options.logger.warn({ organization: organizationId }, 'reputation lookup quota used up');
      observer?.lookedUp('throttled');
      return Promise.resolve({ kind: 'quota', retryAfterMs: grant.retryAfterMs });
    }
    const lookup = this.throttledCall(url).finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, lookup);
    return lookup;
  }

  /** Lookups waiting for a free slot under the quota and concurrency limits. */
  queued(): number {
    const counts = this.limiter.counts();
    return counts.RECEIVED + counts.QUEUED;
  }

  async close(): Promise<void> {
    await this.limiter.stop({ dropWaitingJobs: true }).catch(() => undefined);
    await this.limiter.disconnect().catch(() => undefined);
  }

  private async throttledCall(url: string): Promise<Reputation> {
    let gaveUp = false;
    let started = false;
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<Reputation>((resolve) => {
      timer = setTimeout(() => {
        if (started) return;
        gaveUp = true;
        resolve(this.throttled('no free slot in time'));
      }, this.options.maxWaitMs);
    });
    const called = this.limiter
      .schedule(() => {
        // A check that gave up while queued makes no call: nobody would read the answer.
        if (gaveUp) return Promise.resolve(throttled('gave up while queued'));
        started = true;
        return this.call(url);
      })
      .catch(() => this.throttled('dropped by the limiter'));
    try {
      return await Promise.race([called, waited]);
    } finally {
      clearTimeout(timer);
    }
  }

  private async call(url: string): Promise<Reputation> {
    let response: Response;
    try {
      response = await fetch(this.endpoint, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: lookupRequestBody(url, this.request),
        // The key is in the URL: a redirect must not carry the request anywhere else.
        redirect: 'error',
        signal: AbortSignal.timeout(this.options.timeoutMs),
      });
    } catch (error) {
      return this.failed(isTimeout(error) ? 'timeout' : 'unreachable');
    }
    let body: unknown;
    try {
      if (!response.ok) {
        await response.body?.cancel();
        return this.failed(`status ${response.status}`);
      }
      body = await response.json();
    } catch (error) {
      return this.failed(isTimeout(error) ? 'timeout' : 'unreadable answer');
    }
    const answer = readLookupAnswer(body);
    if (!answer) return this.failed('answer not in the Lookup API format');
    this.options.observer?.lookedUp('miss');
    if (answer.kind === 'clean') {
      const clean: Reputation = { kind: 'clean' };
      this.cache.set(url, clean, this.options.cleanCacheMs);
      return clean;
    }
    const threat: Reputation = { kind: 'threat', threatType: answer.threatType };
    this.cache.set(
      url,
      threat,
      answer.cacheMs ?? this.options.defaultThreatCacheMs ?? DEFAULT_THREAT_CACHE_MS,
    );
    return threat;
  }

  private failed(why: string): Reputation {
    // Neither the URL (user data) nor the endpoint (it holds the key) is logged.
    this.options.logger.warn({ why }, 'reputation lookup failed');
    this.options.observer?.lookedUp('error');
    return { kind: 'unavailable', why };
  }

  private throttled(why: string): Reputation {
    this.options.observer?.lookedUp('throttled');
    return throttled(why);
  }
}

function throttled(why: string): Reputation {
  return { kind: 'unavailable', why: `throttled: ${why}` };
}

function isTimeout(error: unknown): boolean {
  const name = (error as { name?: unknown } | null)?.name;
  return name === 'TimeoutError' || name === 'AbortError';
}
