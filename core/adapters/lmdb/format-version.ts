import { META_KEYS, type LmdbDatabases } from './databases';
import { DataDirError } from './data-dir';

/**
 * The layout of the databases this code reads and writes. Raise it when older code must no longer
 * open the data, and teach `checkFormatVersion` to migrate from the previous value.
 *
 * - 1: the first layout.
 * - 2: idempotency completions write no expiry entry, and the sweep moves an entry that comes due
 *   before its record's expiry instead of dropping it. Version 1 data needs no rewrite, but
 *   version 1 code sweeping version 2 data would drop a completed record's only entry and leave
 *   the record for ever, so version 1 code must not open it.
 */
export const FORMAT_VERSION = 2;

/** Versions this code upgrades in place by writing FORMAT_VERSION (nothing to rewrite). */
const UPGRADED_IN_PLACE: readonly number[] = [1];

/**
 * Records the format version in a new store, upgrades an older one that needs no rewrite, and
 * refuses a store written by newer code (it may hold data this code would misread or overwrite). The write is also the start-up probe: a
 * directory that is read-only or on a full disk fails here, before any gateway listens.
 */
export async function checkFormatVersion(dbs: LmdbDatabases, path: string): Promise<number> {
  const { meta } = dbs;
  const found = await meta.transaction(() => {
    const stored = meta.get(META_KEYS.formatVersion);
    const upgraded = typeof stored === 'number' && UPGRADED_IN_PLACE.includes(stored);
    if (stored === undefined || upgraded) void meta.put(META_KEYS.formatVersion, FORMAT_VERSION);
    void meta.put(META_KEYS.openedAt, Date.now());
    return stored === undefined || upgraded ? FORMAT_VERSION : stored;
  });
  if (typeof found !== 'number' || !Number.isInteger(found)) {
    throw new DataDirError(
      `DATA_DIR ${path} holds an unreadable format version (${JSON.stringify(found)})`,
    );
  }
  if (found > FORMAT_VERSION) {
    throw new DataDirError(
      `DATA_DIR ${path} holds data in format version ${found}, newer than this code's ` +
        `${FORMAT_VERSION}: run the newer shortlink that wrote it, or point DATA_DIR elsewhere`,
    );
  }
  return found;
}
