import { constants, type Stats } from 'node:fs';
import { chmod, open, stat, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageOf } from '../../errors/message-of';
import { DataDirError } from './data-dir';
import { PRIVATE_FILE_MODE, readableByOthers, sharedProblem } from './owner-only';

/** LMDB's two files in a data directory. */
const DATA_FILE = 'data.mdb';
const LOCK_FILE = 'lock.mdb';

/**
 * How long an empty `data.mdb` is given to become a store before it is refused. LMDB creates the
 * file and writes its first two pages at once, under its lock, so another process starting on the
 * same new directory can see it empty for a moment; a file still empty after this is not being
 * made.
 */
const EMPTY_FILE_GRACE_MS = 500;
const EMPTY_FILE_POLL_MS = 25;

/**
 * A look at `data.mdb`'s two meta pages before LMDB maps the file. LMDB trusts them: on a file
 * that is not its own (overwritten, a wrong file copied into place) it dies of SIGSEGV, and on a
 * truncated one (a copy cut short, a `cp` interrupted) it touches pages past the end of the file
 * and dies of SIGBUS, with no message either way, in the service and in the admin CLI alike. This
 * turns those into a DataDirError naming the path.
 *
 * The layout read here is the one lmdb-js's LMDB writes (data version 2): a 24-byte page header,
 * then the magic, the version, and at 0x30 and 0x60 the free and main databases' records (48 bytes
 * each: the page size in the first's first field, the root page at +40), the transaction id at
 * 0x98. A meta page of another version is not read beyond its magic.
 */
const MAGIC = 0xbeefc0de;
const DATA_VERSION = 2;
const MAGIC_AT = 0x18;
const VERSION_AT = 0x1c;
const PAGE_SIZE_AT = 0x30;
const ROOTS_AT = [0x30 + 40, 0x60 + 40];
const TXNID_AT = 0x98;
const META_BYTES = 0xa0;
const NO_PAGE = 0xffffffffffffffffn;

interface Meta {
  version: number;
  txnid: bigint;
  roots: bigint[];
}

function metaOf(page: Buffer): Meta | undefined {
  if (page.length < META_BYTES || page.readUInt32LE(MAGIC_AT) !== MAGIC) return undefined;
  return {
    version: page.readUInt32LE(VERSION_AT),
    txnid: page.readBigUInt64LE(TXNID_AT),
    roots: ROOTS_AT.map((at) => page.readBigUInt64LE(at)),
  };
}

/**
 * The checks made before LMDB opens a data directory's files, which it trusts: each of
 * `lock.mdb` and `data.mdb` that exists must be a regular file (LMDB's open of a FIFO never
 * returned) that only this user may change (owner-only.ts); `data.mdb` must not be empty (LMDB
 * would make a new store of it, and the service a new demo organization) and its meta pages must
 * fit the file. With `makePrivate`, a file others may read (0644, as an older release made them)
 * is made 0600; a store opened to read only is left as it is.
 */
export async function checkStoreFiles(
  path: string,
  { makePrivate }: { makePrivate: boolean },
): Promise<void> {
  await checkStoreFile(path, LOCK_FILE, makePrivate);
  const handle = await checkStoreFile(path, DATA_FILE, makePrivate);
  if (!handle) return;
  try {
    await checkMetaPages(path, handle);
  } finally {
    await handle.close();
  }
}

/**
 * One file's type, owner and mode; for data.mdb its handle, opened to read (undefined when the
 * file is missing, or unreadable: LMDB's open says why).
 */
async function checkStoreFile(
  path: string,
  file: string,
  makePrivate: boolean,
): Promise<FileHandle | undefined> {
  const name = join(path, file);
  const found = await stat(name).catch(() => undefined);
  if (!found) return undefined; // LMDB makes it (0600)
  checkStats(path, file, found);
  if (makePrivate && readableByOthers(found)) {
    await chmod(name, PRIVATE_FILE_MODE).catch((error: unknown) => {
      throw new DataDirError(
        `DATA_DIR ${path} holds a ${file} others may read, which cannot be made private: ${messageOf(error)}`,
      );
    });
  }
  if (file !== DATA_FILE) return undefined;
  // Non-blocking: should a FIFO have taken the file's place since the stat, the open does not wait
  // for a writer; the handle's own stat then refuses it.
  const handle = await open(name, constants.O_RDONLY | constants.O_NONBLOCK).catch(() => undefined);
  if (!handle) return undefined;
  try {
    checkStats(path, file, await handle.stat());
  } catch (error) {
    await handle.close();
    throw error;
  }
  return handle;
}

function checkStats(path: string, file: string, found: Stats): void {
  if (!found.isFile()) {
    const remedy =
      file === DATA_FILE
        ? `move it away, and restore ${file} from a backup`
        : `move it away (LMDB makes a new ${file})`;
    throw new DataDirError(
      `DATA_DIR ${path} holds a ${file} that is ${kindOf(found)}, not a regular file: ${remedy}`,
    );
  }
  const problem = sharedProblem(
    `DATA_DIR ${path} holds a ${file} that`,
    join(path, file),
    found,
    'file',
  );
  if (problem !== undefined) throw new DataDirError(problem);
}

function kindOf(found: Stats): string {
  if (found.isFIFO()) return 'a FIFO';
  if (found.isDirectory()) return 'a directory';
  if (found.isSocket()) return 'a socket';
  if (found.isCharacterDevice()) return 'a character device';
  if (found.isBlockDevice()) return 'a block device';
  return 'no regular file';
}

/** The first bytes of `data.mdb`, waiting a moment for a file still empty (EMPTY_FILE_GRACE_MS). */
async function readHead(path: string, handle: FileHandle): Promise<Buffer> {
  const first = Buffer.alloc(META_BYTES);
  for (let waited = 0; ; waited += EMPTY_FILE_POLL_MS) {
    const { bytesRead } = await handle.read(first, 0, META_BYTES, 0);
    if (bytesRead > 0) return first.subarray(0, bytesRead);
    if (waited >= EMPTY_FILE_GRACE_MS) {
      throw new DataDirError(
        `DATA_DIR ${path} holds an empty ${DATA_FILE} (0 bytes), not a store: restore it from a backup, or delete it to start a new, empty store`,
      );
    }
    await sleep(EMPTY_FILE_POLL_MS);
  }
}

/** Refuses a `data.mdb` LMDB would crash on (its meta pages past the end of the file). */
async function checkMetaPages(path: string, handle: FileHandle): Promise<void> {
  const file = DATA_FILE;
  const head = await readHead(path, handle);
  const damaged = (what: string) =>
    new DataDirError(
      `DATA_DIR ${path} holds a ${file} that LMDB cannot open (${what}): restore it from a backup`,
    );
  const meta0 = metaOf(head);
  if (!meta0) throw damaged('not an LMDB data file');
  if (meta0.version !== DATA_VERSION) return;
  const pageSize = head.readUInt32LE(PAGE_SIZE_AT);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    throw damaged('not an LMDB data file');
  }
  const second = Buffer.alloc(META_BYTES);
  const read1 = await handle.read(second, 0, META_BYTES, pageSize);
  // The header first, then the size: a file LMDB writes meanwhile only grows.
  const { size } = await handle.stat();
  const pages = BigInt(Math.floor(size / pageSize));
  if (pages < 2n) throw damaged(`truncated: ${size} bytes`);
  const meta1 = metaOf(second.subarray(0, read1.bytesRead));
  const newest =
    meta1 && meta1.version === DATA_VERSION && meta1.txnid > meta0.txnid ? meta1 : meta0;
  for (const root of newest.roots) {
    if (root !== NO_PAGE && root >= pages) {
      throw damaged(`truncated: ${size} bytes, its last commit needs page ${root}`);
    }
  }
}
