import type { IdSequence } from '../../ports/id-sequence';
import { META_KEYS, type LmdbDatabases } from './databases';
import { onLmdb } from './lmdb-errors';

/**
 * Ids from one counter read and written inside a write transaction. LMDB has one writer at a
 * time per environment, across every process that opens it, so each caller in any process gets
 * a distinct, increasing value starting at 1.
 *
 * The allocation awaits the commit, not the disk sync: a link that uses the id is synced in a
 * later transaction, and a sync covers every earlier commit, so no id answered with a 200 can be
 * handed out again after a power loss.
 */
export class LmdbIdSequence implements IdSequence {
  constructor(
    private readonly dbs: LmdbDatabases,
    private readonly path: string,
  ) {}

  next(): Promise<number> {
    const { meta } = this.dbs;
    return onLmdb(this.path, 'id allocation', () =>
      meta.transaction(() => {
        const last = meta.get(META_KEYS.linkIds);
        const next = (typeof last === 'number' ? last : 0) + 1;
        void meta.put(META_KEYS.linkIds, next);
        return next;
      }),
    );
  }
}
