import { LRUCache } from 'lru-cache';

export interface LookupCacheOptions {
  /** The most entries kept; the least recently used go first. */
  max: number;
  /** How long an entry is trusted (ms); absent = until evicted or invalidated. */
  ttlMs?: number;
  /** Monotonic milliseconds (tests inject a clock); default performance.now(). */
  now?: () => number;
}

/** A lookup in flight, and the invalidations by value issued while it runs. */
interface InFlight<V> {
  lookup: Promise<V | null>;
  /** deleteWhere() predicates issued since it started, in order. */
  vetoes: Array<(value: V) => boolean>;
}

/**
 * A bounded cache of found results in front of a lookup. Only found results are kept: a miss is
 * asked again next time, so something created a moment ago is found at once. Concurrent misses
 * for one key share one lookup. A lookup in flight when its key is invalidated still answers its
 * callers, but its result is not kept (it may predate the change), and later callers start a new
 * one; see deleteWhere for invalidations by value.
 */
export class LookupCache<V extends NonNullable<unknown>> {
  private readonly values: LRUCache<string, V>;
  private readonly pending = new Map<string, InFlight<V>>();

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
    if (shared) return this.join(key, shared, load);
    const flight: InFlight<V> = { lookup: Promise.resolve(null), vetoes: [] };
    flight.lookup = load()
      .then((value) => {
        const current = this.pending.get(key) === flight;
        if (value !== null && current && !flight.vetoes.some((vetoed) => vetoed(value))) {
          this.values.set(key, value);
        }
        return value;
      })
      .finally(() => {
        if (this.pending.get(key) === flight) this.pending.delete(key);
      });
    this.pending.set(key, flight);
    return flight.lookup;
  }

  /**
   * The answer of a lookup already in flight, unless a deleteWhere issued before this caller
   * came picks it: what it found may predate that change, which this caller must see, so it asks
   * again (callers after the same invalidation then share that new lookup).
   */
  private async join(key: string, flight: InFlight<V>, load: () => Promise<V | null>) {
    const before = flight.vetoes.length;
    const value = await flight.lookup;
    if (value === null || !flight.vetoes.slice(0, before).some((vetoed) => vetoed(value))) {
      return value;
    }
    return this.get(key, load);
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
   * Drops every kept value `matches` picks. What the lookups in flight will find cannot be tested
   * yet, so each is tested as it lands: a value `matches` picks is answered to the callers that
   * came before this call but not kept, and callers that came after ask again; any other value
   * is kept and shared as usual (an invalidation of one value costs the others nothing).
   */
  deleteWhere(matches: (value: V) => boolean): void {
    const picked: string[] = [];
    this.values.forEach((value, key) => {
      if (matches(value)) picked.push(key);
    });
    for (const key of picked) this.values.delete(key);
    for (const flight of this.pending.values()) flight.vetoes.push(matches);
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
