import { BackendUnavailableError } from '../../errors/shortlink-error';
import type { LinkRecord, LinkStore, NewLink } from '../../ports/link-store';

/**
 * Entries per Map. V8 refuses a Map's 2^24th entry with a RangeError; the store moves on to a
 * new Map well before that, so one process can hold more links than one Map can.
 */
const LINK_MAP_CAPACITY = 2 ** 23;

export interface MemoryLinkStoreOptions {
  /** Entries per Map before the next one is started (tests inject a small value). */
  mapCapacity?: number;
  /**
   * The most links this store takes; past it an insert fails with BackendUnavailableError
   * (code 23, as a full disk does on LMDB) and writes nothing. Unlimited when not set.
   */
  maxLinks?: number;
}

const keyOf = (domain: string, alias: string) => `${domain}\u0000${alias}`;

/**
 * The embedded link store. Insert is atomic because the check, the id and the write share one
 * tick; ids follow the order of the inserts (a taken alias uses none).
 */
export class MemoryLinkStore implements LinkStore {
  private readonly maps: Array<Map<string, LinkRecord>> = [new Map<string, LinkRecord>()];
  private readonly mapCapacity: number;
  private readonly maxLinks: number;
  private count = 0;
  private lastId = 0;

  constructor(options: MemoryLinkStoreOptions = {}) {
    this.mapCapacity = options.mapCapacity ?? LINK_MAP_CAPACITY;
    this.maxLinks = options.maxLinks ?? Number.POSITIVE_INFINITY;
  }

  insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    const key = keyOf(link.domain, link.alias);
    if (this.maps.some((map) => map.has(key))) return Promise.resolve('alias_taken');
    if (this.count >= this.maxLinks) {
      return Promise.reject(
        new BackendUnavailableError(
          `the in-memory store holds its maximum of ${this.maxLinks} links; ` +
            'use a durable store (DATA_DIR or MONGODB_URI) for more',
        ),
      );
    }
    let current = this.maps[this.maps.length - 1] as Map<string, LinkRecord>;
    if (current.size >= this.mapCapacity) {
      current = new Map();
      this.maps.push(current);
    }
    this.lastId += 1;
    const record: LinkRecord = { ...link, id: this.lastId, createdAt: new Date(link.createdAt) };
    current.set(key, record);
    this.count += 1;
    return Promise.resolve({ ...record, createdAt: new Date(record.createdAt) });
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    const key = keyOf(domain, alias);
    for (const map of this.maps) {
      const found = map.get(key);
      // A copy, as insert answers and as LMDB and MongoDB answer: a caller that changes it changes
      // nothing stored.
      if (found) return Promise.resolve({ ...found, createdAt: new Date(found.createdAt) });
    }
    return Promise.resolve(null);
  }

  /** Number of links held (for tests and memory benchmarks). */
  get size(): number {
    return this.count;
  }

  /** Number of Maps in use (tests). */
  get mapCount(): number {
    return this.maps.length;
  }
}
