import type { InsertOutcome, LinkRecord, LinkStore } from '../../ports/link-store';
import { fromStoredLink, toStoredLink, type LinkKey, type LmdbDatabases } from './databases';
import { onLmdb, readLmdb } from './lmdb-errors';

/**
 * Links on LMDB. The [domain, alias] key decides who gets an alias: the put is conditional on the
 * key not existing, checked by LMDB inside the committing write transaction (which holds the
 * environment's writer lock across processes), never by a lookup before the write.
 */
export class LmdbLinkStore implements LinkStore {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
  ) {}

  insert(link: LinkRecord): Promise<InsertOutcome> {
    const key: LinkKey = [link.domain, link.alias];
    const stored = toStoredLink(link);
    return onLmdb(this.path, 'link insert', async () => {
      const { links } = this.dbs;
      const written = await links.ifNoExists(key, () => void links.put(key, stored));
      return written ? 'inserted' : 'alias_taken';
    });
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
