import type { LinkRecord, LinkStore, NewLink } from '../../ports/link-store';
import {
  fromStoredLink,
  META_KEYS,
  toStoredLink,
  type LinkKey,
  type LmdbDatabases,
} from './databases';
import { onLmdb, readLmdb } from './lmdb-errors';

/**
 * Links on LMDB. One write transaction checks that the [domain, alias] key is free, takes the
 * next id from the counter in `meta` and puts the link. LMDB runs one write transaction at a
 * time per environment, across every process that opens it (the writer lock in lock.mdb), so
 * the check decides who gets an alias (never a lookup before the write), and ids are distinct
 * and increasing across every process on the DATA_DIR, starting at 1. A taken alias writes
 * nothing and uses no id.
 */
export class LmdbLinkStore implements LinkStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
  ) {}

  async insert(link: NewLink): Promise<LinkRecord | 'alias_taken'> {
    const key: LinkKey = [link.domain, link.alias];
    const { links, meta } = this.dbs;
    const id = await onLmdb(this.path, 'link insert', () =>
      links.transaction(() => {
        if (links.doesExist(key)) return undefined;
        const last = meta.get(META_KEYS.linkIds);
        const next = (typeof last === 'number' ? last : 0) + 1;
        void meta.put(META_KEYS.linkIds, next);
        void links.put(key, toStoredLink({ ...link, id: next }));
        return next;
      }),
    );
    // The commit made the link visible to every process and safe from a crash of this one; the
    // create waits for the fsync (Store.flush) before it answers.
    return id === undefined ? 'alias_taken' : { ...link, id };
  }

  findByAlias(domain: string, alias: string): Promise<LinkRecord | null> {
    return readLmdb(this.path, 'link lookup', () => {
      const key: LinkKey = [domain, alias];
      const stored = this.dbs.links.get(key);
      return stored ? fromStoredLink(key, stored) : null;
    });
  }

  /** Number of links held (tests and benchmarks). */
  count(): number {
    return this.dbs.links.getCount();
  }
}
