import { constants, type Stats } from 'node:fs';
import { access, mkdir, stat, statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { messageOf } from '../../errors/message-of';
import { systemErrorCode } from '../../errors/system-error-code';
import { sharedProblem } from './owner-only';

/** A data directory the store cannot use; the message names the path and what is wrong. */
export class DataDirError extends Error {
  override readonly name = 'DataDirError';
}

/**
 * Free space a start needs. LMDB memory-maps its files, and a mapped page the file system cannot
 * back (a full disk) kills the process with SIGBUS instead of returning an error; refusing to
 * start on a (nearly) full disk turns that into a clear message.
 */
const MIN_FREE_BYTES = 1024 * 1024;

/** Mode of a data directory the store creates: only the service's own user may read it. */
export const DATA_DIR_MODE = 0o700;

/**
 * `dataDir` as an absolute path. An empty path would resolve to the working directory, which would
 * quietly take the store's files: refused, as anything not a string is. Checked here, not only by
 * the configuration: an embedder passes dataDir directly.
 */
export function dataDirPath(dataDir: unknown): string {
  if (typeof dataDir !== 'string' || dataDir.trim() === '') {
    throw new DataDirError(
      `DATA_DIR must name a directory (a non-empty path), not ${JSON.stringify(dataDir) ?? String(dataDir)}`,
    );
  }
  return resolve(dataDir);
}

/**
 * Makes sure `dataDir` is a directory this process can read and write, creating it (mode 0700,
 * parents included) when it does not exist, and that no other user can change it (see
 * owner-only.ts). Returns the absolute path.
 */
export async function prepareDataDir(dataDir: string): Promise<string> {
  const path = dataDirPath(dataDir);
  const found = await stat(path).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new DataDirError(`DATA_DIR ${path} cannot be examined: ${messageOf(error)}`);
  });
  if (found && !found.isDirectory()) {
    throw new DataDirError(`DATA_DIR ${path} is not a directory`);
  }
  if (!found) {
    try {
      await makeDirectories(path, DATA_DIR_MODE);
    } catch (error) {
      throw new DataDirError(`DATA_DIR ${path} cannot be created: ${messageOf(error)}`);
    }
  }
  await checkOwnerOnly(path);
  try {
    await access(path, constants.R_OK | constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new DataDirError(`DATA_DIR ${path} is not writable by this process: ${messageOf(error)}`);
  }
  const { bavail, bsize } = await statfs(path);
  if (bavail * bsize < MIN_FREE_BYTES) {
    throw new DataDirError(
      `DATA_DIR ${path} is on a full disk (${bavail * bsize} bytes free, ` +
        `at least ${MIN_FREE_BYTES} needed to start)`,
    );
  }
  return path;
}

/**
 * Refuses a data directory another user owns or may write (owner-only.ts), the message saying how
 * to fix it. Also for a directory opened to read only: whoever can write it can replace the store
 * that is read. With `ifPresent`, a directory that does not exist passes (a missing one is for the
 * caller to report); one this user cannot even look at (a parent another user's) is refused.
 */
export async function checkOwnerOnly(path: string, { ifPresent = false } = {}): Promise<void> {
  let found: Stats;
  try {
    found = await stat(path);
  } catch (error) {
    if (ifPresent && systemErrorCode(error) === 'ENOENT') return;
    throw new DataDirError(`DATA_DIR ${path} cannot be examined: ${messageOf(error)}`);
  }
  // Anything else in the directory's place is the store's own check to name ("is not a directory").
  if (!found.isDirectory()) return;
  const problem = sharedProblem(`DATA_DIR ${path}`, path, found, 'directory');
  if (problem !== undefined) throw new DataDirError(problem);
}

/**
 * `mkdir -p`, one level at a time: every missing directory of `path`, from the top, with `mode`.
 * Node's own recursive mkdir spins at full CPU forever where a file system answers ENOENT for a
 * child of a directory that exists (procfs, sysfs: a DATA_DIR under /proc hung the start); here
 * each level is made once, and a failure is that level's own error. Answers the levels it made,
 * from the top.
 */
export async function makeDirectories(path: string, mode: number): Promise<string[]> {
  const missing: string[] = [];
  for (let level = resolve(path); !(await exists(level)); level = dirname(level)) {
    missing.unshift(level);
    if (dirname(level) === level) break;
  }
  for (const level of missing) {
    await mkdir(level, { mode }).catch(async (error: unknown) => {
      // Made meanwhile by someone else is fine; anything else there (a file, a dangling link) is not.
      const made =
        systemErrorCode(error) === 'EEXIST' && (await stat(level).catch(() => undefined));
      if (!made || !made.isDirectory()) throw error;
    });
  }
  return missing;
}

/** False only when nothing is at `path` (other failures to look are left to mkdir to report). */
async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    (error: unknown) => systemErrorCode(error) !== 'ENOENT',
  );
}
