import type {
  LinkActing,
  LinkChangeOutcome,
  LinkCompletion,
  LinkDisabling,
  LinkEdit,
  LinkHistoryEntry,
  LinkListQuery,
  LinkRecord,
  LinkStore,
  NewLink,
} from '../ports/link-store';
import { cacheKey, LookupCache, type LookupCacheOptions } from './lookup-cache';

interface LinkCacheOptions {
  /** The most links kept; the least recently used go first. */
  maxEntries: number;
  /**
   * How long a link is trusted (ms): the bound within which a change made by another process
   * (a disable, an enable) is seen here when no change stream tells of it sooner.
   */
  ttlMs: number;
  /**
   * How long past `ttlMs` a link is still followed while the store cannot answer (ms; 0: never):
   * see LookupCache.
   */
  staleIfErrorMs?: number;
  /** A longer trust while the link change stream advances: see LookupCache. */
  trustedWhile?: LookupCacheOptions['trustedWhile'];
  /** Monotonic milliseconds for the TTL (tests inject a clock). */
  now?: () => number;
}

/**
 * Found links kept for following, so that a hot link costs the store one read per `ttlMs` in
 * each process. Bounded (least recently used go first); "not found" is never kept, so a link
 * created by another process is found as soon as it exists. A link's state changes (disable,
 * enable): a change made through this store drops the link at once, one reported by the backend
 * (`invalidate`) as soon as it is reported, any other within `ttlMs`.
 */
export class CachedLinkStore implements LinkStore {
  private readonly cache: LookupCache<LinkRecord>;

  constructor(
    private readonly inner: LinkStore,
    options: LinkCacheOptions,
  ) {
    this.cache = new LookupCache({
      max: options.maxEntries,
      ttlMs: options.ttlMs,
      staleIfErrorMs: options.staleIfErrorMs ?? 0,
      ...(options.trustedWhile ? { trustedWhile: options.trustedWhile } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
  }

  async insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    return this.kept(link, await this.inner.insert(link));
  }

  async insertCompleting(
    link: NewLink,
    completion: LinkCompletion,
  ): Promise<LinkRecord | 'alias_taken' | 'claim_lost'> {
    return this.kept(link, await this.inner.insertCompleting(link, completion));
  }

  /** A link created here is often followed soon after: keep it without a lookup. */
  private kept<T extends LinkRecord | 'alias_taken' | 'claim_lost'>(link: NewLink, outcome: T): T {
    if (typeof outcome !== 'string') this.cache.set(cacheKey(link.domain, link.alias), outcome);
    return outcome;
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    return this.cache.get(cacheKey(domain, alias), () => this.inner.findByAlias(domain, alias));
  }

  /** A link kept here (found by a lookup, or created by this process), without a read. */
  findKnownByAlias(domain: string, alias: string): LinkRecord | undefined {
    return this.cache.known(cacheKey(domain, alias));
  }

  /** Not cached: its reader (following's domain directory) keeps its own copy for a while. */
  listDomains(): Promise<string[]> {
    return this.inner.listDomains();
  }

  /** Not cached: read by the governing procedures, which must see the stored state. */
  findById(id: number): Promise<LinkRecord | null> {
    return this.inner.findById(id);
  }

  list(query: LinkListQuery): Promise<LinkRecord[]> {
    return this.inner.list(query);
  }

  async setDisabled(
    id: number,
    disabling: LinkDisabling | null,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return this.dropping(await this.inner.setDisabled(id, disabling, acting));
  }

  async update(
    id: number,
    edit: LinkEdit,
    acting: LinkActing,
  ): Promise<LinkChangeOutcome | 'held' | null> {
    return this.dropping(await this.inner.update(id, edit, acting));
  }

  /** Never cached: counting against max_visits is decided by the store, atomically. */
  takeVisit(id: number): Promise<'counted' | 'exhausted' | null> {
    return this.inner.takeVisit(id);
  }

  history(
    id: number,
    page: { after: number; limit: number },
  ): Promise<Array<{ position: number; entry: LinkHistoryEntry }>> {
    return this.inner.history(id, page);
  }

  /** A link changed through this store is dropped at once: the next follow reads it. */
  private dropping<T extends LinkChangeOutcome | 'held' | null>(outcome: T): T {
    if (outcome && outcome !== 'held') this.invalidate(outcome.link.domain, outcome.link.alias);
    return outcome;
  }

  /** Forgets one link (its state changed elsewhere, as a change stream reports). */
  invalidate(domain: string, alias: string): void {
    this.cache.delete(cacheKey(domain, alias));
  }

  /** Forgets every link (changes may have been missed). */
  invalidateAll(): void {
    this.cache.clear();
  }

  /** Not cached: provisioning must count what is stored now. */
  countByDomain(domain: string, limit?: number): Promise<number> {
    return this.inner.countByDomain(domain, limit);
  }
}
