import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { DataDirError } from './data-dir';

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

/** Refuses a `data.mdb` LMDB would crash on; a missing or empty one is LMDB's to create. */
export async function checkDataFile(path: string, file = 'data.mdb'): Promise<void> {
  const name = join(path, file);
  const handle = await open(name, 'r').catch(() => undefined);
  if (!handle) return; // missing (or unreadable: LMDB's open says why)
  try {
    const first = Buffer.alloc(META_BYTES);
    const { bytesRead } = await handle.read(first, 0, META_BYTES, 0);
    if (bytesRead === 0) return;
    const damaged = (what: string) =>
      new DataDirError(
        `DATA_DIR ${path} holds a ${file} that LMDB cannot open (${what}): restore it from a backup`,
      );
    const meta0 = metaOf(first.subarray(0, bytesRead));
    if (!meta0) throw damaged('not an LMDB data file');
    if (meta0.version !== DATA_VERSION) return;
    const pageSize = first.readUInt32LE(PAGE_SIZE_AT);
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
  } finally {
    await handle.close();
  }
}
