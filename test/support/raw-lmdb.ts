import type { RootDatabase } from 'lmdb';
import { META_KEYS } from '../../core/adapters/lmdb';
import { openDatabases, type LmdbDatabases } from '../../core/adapters/lmdb/databases';
import { openEnvironment } from '../../core/adapters/lmdb/lmdb-store';

/**
 * A store's environment opened past the store's code, with the product's settings, to write what
 * older code left or read what the store wrote. lmdb-js allows a second open in one process.
 * Its reads keep the snapshot they began with until lmdb-js renews it on a timer, which a write
 * through the store's own handle does not wait for: call `root.resetReadTxn()` after such a write,
 * before reading what it wrote.
 */
export function openRawDatabases(dir: string): { root: RootDatabase; dbs: LmdbDatabases } {
  const root = openEnvironment(dir);
  return { root, dbs: openDatabases(root) };
}

/** The format version recorded in the store in `dir`, after writing `set` there when given. */
export async function formatVersionIn(dir: string, set?: number): Promise<unknown> {
  const { root, dbs } = openRawDatabases(dir);
  try {
    if (set !== undefined) await dbs.meta.put(META_KEYS.formatVersion, set);
    return dbs.meta.get(META_KEYS.formatVersion);
  } finally {
    await root.close();
  }
}
