import { LRUCache } from 'lru-cache';
import { BackendUnavailableError } from '../errors/shortlink-error';

export interface LookupCacheOptions {
  /** The most entries kept; the least recently used go first. */
  max: number;
  /** How long an entry is trusted (ms); absent = until evicted or invalidated. */
  ttlMs?: number;
  /**
   * How long past `ttlMs` an entry is still answered when its lookup fails with
   * BackendUnavailableError (ms; STALE_IF_ERROR_SECONDS; absent or 0: never). Only with `ttlMs`.
   */
  staleIfErrorMs?: number;
  /** Monotonic milliseconds (tests inject a clock); default performance.now(). */
  now?: () => number;
  /**
   * A longer trust, `ttlMs` from when an entry was kept, for as long as `holds()` says so (a
   * change stream that advances: every change made elsewhere reaches `delete` within the short
   * bound anyway). Only with `ttlMs`, and longer than it.
   */
  trustedWhile?: { ttlMs: number; holds: () => boolean };
}

/** A lookup in flight, and the invalidations by value issued while it runs. */
interface InFlight<V> {
  lookup: Promise<V | null>;
  /** deleteWhere() predicates issued since it started, in order. */
  vetoes: Array<(value: V) => boolean>;
}

/**
 * A kept value and the moments (on the cache's clock) until which it is answered without a
 * lookup (`freshUntil`; up to `trustedUntil` while the longer trust holds), and until which it may
 * be answered stale (`staleUntil`).
 */
interface Entry<V> {
  value: V;
  freshUntil: number;
  trustedUntil: number;
  staleUntil: number;
}

/**
 * A bounded cache of found results in front of a lookup. Only found results are kept: a miss is
 * asked again next time, so something created a moment ago is found at once. Concurrent misses
 * for one key share one lookup. A lookup in flight when its key is invalidated still answers its
 * callers, but its result is not kept (it may predate the change), and later callers start a new
 * one; see deleteWhere for invalidations by value.
 *
 * Stale if error: an entry past `ttlMs` whose lookup fails with BackendUnavailableError (the
 * store cannot answer: an election, an outage) is answered instead of the failure, for up to
 * `staleIfErrorMs` past its time, and then counts as fresh for another `ttlMs`, so an outage
 * costs one waiting lookup per key per period rather than one per request. An entry invalidated
 * (deleted, deleteWhere, clear) is gone, never answered stale.
 */
export class LookupCache<V extends NonNullable<unknown>> {
  private readonly values: LRUCache<string, Entry<V>>;
  private readonly pending = new Map<string, InFlight<V>>();
  private readonly ttlMs: number;
  private readonly staleIfErrorMs: number;
  private readonly trustedWhile: LookupCacheOptions['trustedWhile'];
  private readonly now: () => number;

  constructor(options: LookupCacheOptions) {
    this.now = options.now ?? (() => performance.now());
    this.ttlMs = options.ttlMs ?? Number.POSITIVE_INFINITY;
    this.staleIfErrorMs = options.staleIfErrorMs ?? 0;
    this.trustedWhile = options.trustedWhile;
    // lru-cache drops an entry once it can no longer be answered, trusted longer or stale.
    const keptMs =
      options.ttlMs === undefined
        ? undefined
        : Math.max(options.ttlMs + this.staleIfErrorMs, options.trustedWhile?.ttlMs ?? 0);
    this.values = new LRUCache<string, Entry<V>>({
      max: options.max,
      ...(keptMs === undefined ? {} : { ttl: keptMs, ttlResolution: 0 }),
      perf: { now: this.now },
    });
  }

  /** Whether `entry` is answered without a lookup now. */
  private fresh(entry: Entry<V> | undefined): entry is Entry<V> {
    if (entry === undefined) return false;
    const now = this.now();
    if (now < entry.freshUntil) return true;
    return now < entry.trustedUntil && this.trustedWhile !== undefined && this.trustedWhile.holds();
  }

  get(key: string, load: () => Promise<V | null>): Promise<V | null> {
    const entry = this.values.get(key);
    if (this.fresh(entry)) return Promise.resolve(entry.value);
    const shared = this.pending.get(key);
    if (shared) return this.join(key, shared, load);
    const flight: InFlight<V> = { lookup: Promise.resolve(null), vetoes: [] };
    flight.lookup = load()
      .then(
        (value) => {
          const current = this.pending.get(key) === flight;
          if (value !== null && current && !flight.vetoes.some((vetoed) => vetoed(value))) {
            this.keep(key, value);
          }
          return value;
        },
        (error: unknown) => {
          // Read again now: an invalidation while the lookup ran removed what may be answered.
          const stale = this.values.get(key);
          if (
            !(error instanceof BackendUnavailableError) ||
            stale === undefined ||
            this.now() >= stale.staleUntil
          ) {
            throw error;
          }
          stale.freshUntil = Math.min(this.now() + this.ttlMs, stale.staleUntil);
          return stale.value;
        },
      )
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

  /** The fresh value kept for `key`, if any: never a lookup. */
  known(key: string): V | undefined {
    const entry = this.values.get(key);
    return this.fresh(entry) ? entry.value : undefined;
  }

  /** Keeps a value known without a lookup (e.g. a link just inserted). */
  set(key: string, value: V): void {
    this.keep(key, value);
  }

  private keep(key: string, value: V): void {
    const now = this.now();
    this.values.set(key, {
      value,
      freshUntil: now + this.ttlMs,
      trustedUntil: now + (this.trustedWhile?.ttlMs ?? 0),
      staleUntil: now + this.ttlMs + this.staleIfErrorMs,
    });
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
    this.values.forEach((entry, key) => {
      if (matches(entry.value)) picked.push(key);
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
