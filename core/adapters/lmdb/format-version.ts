import { META_KEYS, type LmdbDatabases } from './databases';
import { DataDirError } from './data-dir';

/**
 * The layout of the databases this code reads and writes. Raise it when a change needs existing
 * data rewritten, and teach `checkFormatVersion` to migrate from the previous value.
 */
export const FORMAT_VERSION = 1;

/**
 * Records the format version in a new store and refuses a store written by newer code (it may
 * hold data this code would misread or overwrite). The write is also the start-up probe: a
 * directory that is read-only or on a full disk fails here, before any gateway listens.
 */
export async function checkFormatVersion(dbs: LmdbDatabases, path: string): Promise<number> {
  const { meta } = dbs;
  const found = await meta.transaction(() => {
    const stored = meta.get(META_KEYS.formatVersion);
    if (stored === undefined) void meta.put(META_KEYS.formatVersion, FORMAT_VERSION);
    void meta.put(META_KEYS.openedAt, Date.now());
    return stored ?? FORMAT_VERSION;
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
