import type { LinkCompletion, LinkRecord, LinkStore, NewLink } from '../ports/link-store';
import { cacheKey, LookupCache } from './lookup-cache';

/**
 * Links never change once created, so following one needs the store only the first time this
 * process sees it. Bounded (least recently used go first); "not found" is never kept, so a link
 * created by another process is found as soon as it exists. No TTL: nothing can go stale.
 */
export class CachedLinkStore implements LinkStore {
  private readonly cache: LookupCache<LinkRecord>;
  /** Present when the inner store has it. */
  readonly insertCompleting?: (
    link: NewLink,
    completion: LinkCompletion,
  ) => Promise<LinkRecord | 'alias_taken'>;

  constructor(
    private readonly inner: LinkStore,
    maxEntries: number,
  ) {
    this.cache = new LookupCache({ max: maxEntries });
    const insertCompleting = inner.insertCompleting?.bind(inner);
    if (insertCompleting) {
      this.insertCompleting = async (link, completion) =>
        this.kept(link, await insertCompleting(link, completion));
    }
  }

  async insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    return this.kept(link, await this.inner.insert(link));
  }

  /** A link created here is often followed soon after: keep it without a lookup. */
  private kept(link: NewLink, outcome: LinkRecord | 'alias_taken'): LinkRecord | 'alias_taken' {
    if (outcome !== 'alias_taken') this.cache.set(cacheKey(link.domain, link.alias), outcome);
    return outcome;
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    return this.cache.get(cacheKey(domain, alias), () => this.inner.findByAlias(domain, alias));
  }
}
