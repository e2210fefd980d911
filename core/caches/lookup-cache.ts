import { LRUCache } from 'lru-cache';

export interface LookupCacheOptions {
  /** The most entries kept; the least recently used go first. */
  max: number;
  /** How long an entry is trusted (ms); absent = until evicted or invalidated. */
  ttlMs?: number;
  /** Monotonic milliseconds (tests inject a clock); default performance.now(). */
  now?: () => number;
}

/**
 * A bounded cache of found results in front of a lookup. Only found results are kept: a miss is
 * asked again next time, so something created a moment ago is found at once. Concurrent misses
 * for one key share one lookup. A lookup in flight when its key is invalidated still answers its
 * callers, but its result is not kept (it may predate the change).
 */
export class LookupCache<V extends NonNullable<unknown>> {
  private readonly values: LRUCache<string, V>;
  private readonly pending = new Map<string, Promise<V | null>>();

  constructor(options: LookupCacheOptions) {
    const now = options.now;
    this.values = new LRUCache<string, V>({
      max: options.max,
      ...(options.ttlMs === undefined ? {} : { ttl: options.ttlMs, ttlResolution: 0 }),
      ...(now ? { perf: { now } } : {}),
    });
  }

  get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const hit = this.values.get(key);
    if (hit !== undefined) return Promise.resolve(hit);
    const shared = this.pending.get(key);
    if (shared) return shared;
    const lookup: Promise<V | null> = load()
      .then((value) => {
        if (value !== null && this.pending.get(key) === lookup) this.values.set(key, value);
        return value;
      })
      .finally(() => {
        if (this.pending.get(key) === lookup) this.pending.delete(key);
      });
    this.pending.set(key, lookup);
    return lookup;
  }

  /** The value kept for `key`, if any: never a lookup. */
  known(key: string): V | undefined {
    return this.values.get(key);
  }

  /** Keeps a value known without a lookup (e.g. a link just inserted). */
  set(key: string, value: V): void {
    this.values.set(key, value);
  }

  delete(key: string): void {
    this.values.delete(key);
    this.pending.delete(key);
  }

  /**
   * Drops every kept value `matches` picks. Lookups in flight are all let go too (they answer
   * their callers, nothing of them is kept): what they will find cannot be tested yet.
   */
  deleteWhere(matches: (value: V) => boolean): void {
    const picked: string[] = [];
    this.values.forEach((value, key) => {
      if (matches(value)) picked.push(key);
    });
    for (const key of picked) this.values.delete(key);
    this.pending.clear();
  }

  clear(): void {
    this.values.clear();
    this.pending.clear();
  }

  get size(): number {
    return this.values.size;
  }
}

/**
 * One cache key from several parts, each prefixed with its length: ids are any text (a NUL
 * included), and parts joined by a separator made ('acme\0x', 'y') and ('acme', 'x\0y') one key,
 * so a url_group_id could be answered another organization's group.
 */
export function cacheKey(...parts: string[]): string {
  return parts.map((part) => `${part.length}:${part}`).join('');
}
