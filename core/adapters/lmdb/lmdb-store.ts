import { chmod, mkdir, rename, rm, rmdir } from 'node:fs/promises';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open, type RootDatabase, type RootDatabaseOptionsWithPath } from 'lmdb';
import { silentLogger, type Logger } from '../../ports/logger';
import type { Store } from '../../ports/store';
import { MAX_DATABASES, META_KEYS, openDatabases, type LmdbDatabases } from './databases';
import { BackupTargetError, checkBackupTarget, BACKUP_IN_PROGRESS } from './backup-target';
import {
  checkOwnerOnly,
  DATA_DIR_MODE,
  DataDirError,
  dataDirPath,
  makeDirectories,
  prepareDataDir,
} from './data-dir';
import { checkStoreFiles } from './data-file-check';
import {
  checkFormatVersion,
  FORMAT_VERSION,
  LINK_INDEXES_SINCE,
  markFormatVersion,
  readFormatVersion,
} from './format-version';
import { closeWithin, untilFlushed } from './flush-guard';
import { LmdbIdempotencyStore } from './lmdb-idempotency-store';
import { LmdbVisitStore } from './lmdb-visit-store';
import { LmdbIdentityStore } from './lmdb-identity-store';
import { indexLinkDomains } from './link-domain-index';
import { LmdbLinkStore } from './lmdb-link-store';
import { indexLinks, linkIndexesComplete } from './link-indexes';
import { messageOf } from '../../errors/message-of';
import { onLmdb, readLmdb } from './lmdb-errors';
import { PRIVATE_FILE_MODE } from './owner-only';

export const LMDB_STORE_KIND = 'lmdb';

/** The file LMDB keeps its data in, inside the data directory (a backup holds the same file). */
export const LMDB_DATA_FILE = 'data.mdb';

export interface LmdbStore extends Store {
  readonly kind: typeof LMDB_STORE_KIND;
  readonly identities: LmdbIdentityStore;
  readonly links: LmdbLinkStore;
  readonly idempotency: LmdbIdempotencyStore;
  readonly visits: LmdbVisitStore;
  /** The absolute path of the data directory. */
  readonly path: string;
  /**
   * Writes a consistent copy of the store (one read snapshot, compacted) into `targetDir`, which
   * must be missing or empty. Safe while this and other processes keep writing.
   */
  backup(targetDir: string): Promise<string>;
}

export interface LmdbStoreOptions {
  /** The data directory; created (mode 0700) when missing. */
  dataDir: string;
  logger?: Logger;
  /**
   * Upgrades a store of an older format (default): builds the link indexes it lacks, then marks
   * it as this code's. `false` leaves its version as it is, for tools that write no idempotency
   * records and no links (the admin commands): an older server may still run on the directory,
   * writing links the indexes would miss, so such a store's links are found by id and listed by
   * reading all of them.
   */
  migrate?: boolean;
  /**
   * Opens the store to read it only (the admin CLI's listings and backups, a look into a backup
   * copy): the environment is opened read-only, no directory is created, and nothing is written
   * (no format version, no opening time, no index, no missing database; LMDB's `lock.mdb` is made
   * when missing, as every reader needs it). A directory that holds no store is refused. A write through
   * the store fails (lmdb-js has no write transaction in a read-only environment): read only.
   */
  readOnly?: boolean;
}

export function isLmdbStore(store: Store): store is LmdbStore {
  return store.kind === LMDB_STORE_KIND && 'backup' in store;
}

/**
 * The environment's settings. Every process opening one directory must use the same ones, so
 * they live here and nowhere else: lmdb-js refuses a second open with another sync mode only
 * inside one process, and LMDB does not check across processes, while a process committing
 * with synchronous commits does not respect what overlapping sync keeps for crash recovery (the
 * pages of the last commit synced to disk).
 */
export function openEnvironment(path: string, { readOnly = false } = {}): RootDatabase {
  return open({
    path,
    // Read-only (the admin listings and backups): no write transaction at all, so a named
    // database that is missing (a store of the first format) is not created, and no writer is
    // waited for. LMDB's lock file is still used (made when missing): readers must register while
    // a server writes.
    readOnly,
    // A path with a dot ("./data", "shortlink.v1") is still a directory, never a single file.
    noSubdir: false,
    maxDbs: MAX_DATABASES,
    // A write resolves once committed and visible to every process; its fsync runs after, outside
    // the writer lock, overlapping later transactions (lmdb-js's default on Linux, stated so it
    // holds everywhere). A committed write survives a crash of the process at once; the writes
    // that answer a client (a link, a recorded idempotent answer) also wait for the fsync, with
    // a bound (flush-guard.ts), so they survive a power loss too.
    overlappingSync: true,
    // Writes are still batched (a transaction starts at the next turn, or after a few writes),
    // but every commit promise goes to its caller. With event-turn batching lmdb-js 3.5 makes a
    // promise of its own per batch, and when a commit fails (a full disk) it rejects unhandled,
    // which stops the process instead of answering BACKEND_UNAVAILABLE.
    eventTurnBatching: false,
    // data.mdb and lock.mdb readable and writable by this user only (LMDB's default is 0664;
    // lmdb-js passes the option on, though its types leave it out).
    permissionsMode: PRIVATE_FILE_MODE,
  } as RootDatabaseOptionsWithPath & { permissionsMode: number });
}

/**
 * Opens (creating when needed) the store in `dataDir`. A directory that cannot hold it (not a
 * directory, not writable, full, written by newer code) fails here with a DataDirError naming
 * the path, so a process never starts half-working. With `readOnly`, only an existing store is
 * opened, and nothing is created or written (see LmdbStoreOptions.readOnly).
 */
export async function createLmdbStore(options: LmdbStoreOptions): Promise<LmdbStore> {
  const logger = options.logger ?? silentLogger;
  if (options.readOnly) return openToRead(options.dataDir, logger);
  const path = await prepareDataDir(options.dataDir);
  await checkStoreFiles(path, { makePrivate: true });
  const root = openEnvironmentIn(path);
  const dbs = openDatabases(root);
  let indexed: boolean;
  try {
    const migrate = options.migrate ?? true;
    const found = await checkFormatVersion(dbs, path);
    // An older store is upgraded only with `migrate`: without, an older server may still write
    // links that the indexes would miss, so they are neither built nor used (see LmdbLinkStore).
    const upgrade = found < FORMAT_VERSION && migrate;
    indexed = found >= LINK_INDEXES_SINCE || upgrade;
    if (indexed && !linkIndexesComplete(dbs)) {
      // Said before it starts: on millions of links the opening takes a while (see the README).
      logger.info({ dataDir: path, links: dbs.links.getCount() }, 'indexing links');
      const added = await indexLinks(dbs);
      // Another process opening the store at the same time may have indexed them all.
      if (added > 0) logger.info({ dataDir: path, links: added }, 'links indexed');
    }
    if (upgrade) {
      await markFormatVersion(dbs);
      logger.info({ dataDir: path, from: found, to: FORMAT_VERSION }, 'LMDB store format migrated');
    }
    const domains = await indexLinkDomains(dbs);
    if (domains > 0) logger.info({ dataDir: path, indexed: domains }, 'link domains indexed');
    const formatVersion = upgrade ? FORMAT_VERSION : found;
    logger.info({ dataDir: path, formatVersion }, 'LMDB store ready');
  } catch (error) {
    await root.close().catch(() => undefined);
    if (error instanceof DataDirError) throw error;
    throw new DataDirError(`DATA_DIR ${path} cannot be written: ${messageOf(error)}`, {
      cause: error,
    });
  }
  return lmdbStoreOn(dbs, path, logger, indexed);
}

function openEnvironmentIn(path: string, options?: { readOnly?: boolean }): RootDatabase {
  try {
    return openEnvironment(path, options);
  } catch (error) {
    throw new DataDirError(
      `DATA_DIR ${path} cannot be opened as an LMDB store: ${messageOf(error)}`,
    );
  }
}

/** createLmdbStore with `readOnly`: the same store, opened without a write. */
async function openToRead(dataDir: string, logger: Logger): Promise<LmdbStore> {
  const path = dataDirPath(dataDir);
  if (existsSync(path) && !statSync(path).isDirectory()) {
    throw new DataDirError(`DATA_DIR ${path} is not a directory`);
  }
  // Before looking inside: another user's directory may not let this one see its store.
  await checkOwnerOnly(path, { ifPresent: true });
  if (!existsSync(join(path, LMDB_DATA_FILE))) {
    throw new DataDirError(`DATA_DIR ${path} holds no store`);
  }
  await checkStoreFiles(path, { makePrivate: false });
  const root = openEnvironmentIn(path, { readOnly: true });
  const dbs = openDatabases(root);
  let indexed: boolean;
  try {
    // Nothing is built here (nothing is written): a store without complete indexes is read
    // without them.
    indexed = readFormatVersion(dbs, path) >= LINK_INDEXES_SINCE && linkIndexesComplete(dbs);
  } catch (error) {
    await root.close().catch(() => undefined);
    throw error;
  }
  return lmdbStoreOn(dbs, path, logger, indexed);
}

function lmdbStoreOn(
  dbs: LmdbDatabases,
  path: string,
  logger: Logger,
  linksIndexed: boolean,
): LmdbStore {
  const { root } = dbs;
  const idempotency = new LmdbIdempotencyStore(dbs, path, logger);
  const flushed = untilFlushed(root, path);
  let closing: Promise<void> | undefined;
  return {
    kind: LMDB_STORE_KIND,
    path,
    identities: new LmdbIdentityStore(dbs, path),
    links: new LmdbLinkStore(dbs, path, linksIndexed),
    idempotency,
    visits: new LmdbVisitStore(dbs, path),
    // Writes answer at commit (visible to every process, safe from a crash of this one); this
    // waits for the fsync that follows, so what it covers also survives a power loss.
    flush: () => flushed('the writes'),
    // A read of the format version: it fails once the environment is closed.
    ping: () =>
      readLmdb(dbs, path, 'ping', () => {
        if (dbs.meta.get(META_KEYS.formatVersion) === undefined) {
          throw new Error('the format version is missing');
        }
      }),
    backup: (targetDir) => backupTo(dbs, path, targetDir),
    // A sweep in progress begins no further transaction; closing waits for its current one.
    // Every operation asked for from now on is refused (BACKEND_UNAVAILABLE) instead of reaching
    // lmdb-js.
    close: () => {
      dbs.closed = true;
      idempotency.stopSweeping();
      return (closing ??= closeWithin(root, path));
    },
  };
}

async function backupTo(dbs: LmdbDatabases, path: string, targetDir: string): Promise<string> {
  const target = await checkBackupTarget(targetDir, path);
  // Copied into a folder inside the target (the same file system, a mounted one included), and
  // moved into place once complete: a copy cut short (a full disk, the command interrupted) never
  // leaves in the target a partial data.mdb that would pass for a backup (a store opened on one
  // dies of SIGBUS).
  const partial = join(target, BACKUP_IN_PROGRESS);
  const made = await makeDirectories(target, DATA_DIR_MODE)
    .then(async (levels) => {
      await mkdir(partial, { mode: DATA_DIR_MODE });
      return levels;
    })
    .catch((error: unknown) => {
      // Not the store's failure: a target the person can correct (read-only, no such parent).
      throw new BackupTargetError(
        `the backup target ${target} cannot be created: ${messageOf(error)}`,
      );
    });
  try {
    await onLmdb(dbs, path, 'backup', () => dbs.root.backup(partial, true));
    // LMDB writes the copy 0666 less the umask; it holds what the store holds.
    await chmod(join(partial, LMDB_DATA_FILE), PRIVATE_FILE_MODE);
    await rename(join(partial, LMDB_DATA_FILE), join(target, LMDB_DATA_FILE));
    await rmdir(partial);
  } catch (error) {
    // The target stays what it was, missing or empty.
    await rm(partial, { recursive: true, force: true }).catch(() => undefined);
    for (const level of made.reverse()) await rmdir(level).catch(() => undefined);
    throw error;
  }
  return target;
}
