import { META_KEYS, type LmdbDatabases } from './databases';
import { DataDirError } from './data-dir';

/**
 * The layout of the databases this code reads and writes. Raise it when a change needs existing
 * data rewritten, or when older code must no longer write next to this one, and teach the opening
 * (`createLmdbStore`) to migrate from the previous values.
 *
 * - 1: the first layout.
 * - 2: running idempotency claims live in `idempotency_running`. Code of format 1 looks for them
 *   in `idempotency` only, so next to this code it could run a key twice. A store of format 1 is
 *   used as it is (claims it holds in `idempotency` are honoured until their lease ends).
 * - 3: links have a state (a disabled link's stored tuple has a 9th element), and the link indexes
 *   `links_by_id`, `links_by_organization`, `links_by_group`, written with every link. Code of
 *   format 2 would follow a disabled link and write links the indexes miss. A store of format 1 or
 *   2 gets its indexes built at opening (link-indexes.ts), and is then marked 3.
 * - 4: links may expire and have a limit of visits (elements 10 to 12 of the stored tuple, the
 *   9th null while active: link-tuple.ts), and their changes are kept in `link_history`. Code of
 *   format 3 would follow an expired link and edit one without its history. A store of format 3
 *   needs nothing rewritten: its tuples read as they are, and it is marked 4 at opening.
 *
 * Older code refuses a store of a newer format, so marking one shuts out the previous releases.
 */
export const FORMAT_VERSION = 4;

/** The first format whose stores have the link indexes (link-indexes.ts). */
export const LINK_INDEXES_SINCE = 3;

/**
 * Records the format version in a new store, refuses a store written by newer code (it may hold
 * data this code would misread or overwrite), and answers the version found: below
 * FORMAT_VERSION for an older store, which keeps its version until `markFormatVersion` (once its
 * upgrade is done). The write is also the start-up probe: a directory that is read-only or on a
 * full disk fails here, before any gateway listens.
 */
export async function checkFormatVersion(dbs: LmdbDatabases, path: string): Promise<number> {
  const { meta } = dbs;
  const found = await meta.transaction(() => {
    const stored = meta.get(META_KEYS.formatVersion);
    if (stored === undefined) void meta.put(META_KEYS.formatVersion, FORMAT_VERSION);
    void meta.put(META_KEYS.openedAt, Date.now());
    return stored ?? FORMAT_VERSION;
  });
  return checkedVersion(found, path);
}

/**
 * Marks an older store as this code's, once what its upgrade needed is done; a store another
 * process marked meanwhile (or a newer one) is left as it is.
 */
export async function markFormatVersion(dbs: LmdbDatabases): Promise<void> {
  const { meta } = dbs;
  await meta.transaction(() => {
    const stored = meta.get(META_KEYS.formatVersion);
    if (typeof stored === 'number' && stored < FORMAT_VERSION) {
      void meta.put(META_KEYS.formatVersion, FORMAT_VERSION);
    }
  });
}

/**
 * The format version of a store opened only to read, refused as checkFormatVersion refuses it,
 * and written nowhere: LMDB data that holds none (written by something else) is refused too.
 */
export function readFormatVersion(dbs: LmdbDatabases, path: string): number {
  const found: unknown = dbs.meta.get(META_KEYS.formatVersion);
  if (found === undefined) {
    throw new DataDirError(
      `DATA_DIR ${path} holds LMDB data without a format version: not a store`,
    );
  }
  return checkedVersion(found, path);
}

function checkedVersion(found: unknown, path: string): number {
  if (typeof found !== 'number' || !Number.isInteger(found) || found < 1) {
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
