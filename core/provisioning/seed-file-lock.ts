import { resolve } from 'node:path';
import { lock } from 'proper-lockfile';

/** How long an admin command waits for another one that holds the seed file, then gives up. */
export const SEED_FILE_LOCK_WAIT_MS = 15_000;
/** A lock left unrefreshed this long belongs to a command that died: the next one takes it over. */
export const SEED_FILE_LOCK_STALE_MS = 10_000;
/** How often a waiting command tries again. */
const RETRY_INTERVAL_MS = 50;

/** The seed file could not be locked, or its lock was lost: nothing was written (exit status 1). */
export class SeedFileLockError extends Error {
  override readonly name = 'SeedFileLockError';
}

interface SeedFileLock {
  /** Throws SeedFileLockError when the lock was lost while held: another command may write now. */
  assertHeld(): void;
  release(): Promise<void>;
}

/**
 * Locks a seed file across processes for one admin command's read-modify-write: a directory
 * `<file>.lock` beside it, made atomically (proper-lockfile), refreshed while held, taken over
 * when stale, removed on release or exit. The file itself need not exist yet. Waits at most
 * `waitMs` for another holder, then rejects with SeedFileLockError rather than hang.
 */
export async function lockSeedFile(
  path: string,
  waitMs = SEED_FILE_LOCK_WAIT_MS,
): Promise<SeedFileLock> {
  const file = resolve(path);
  let lost: Error | undefined;
  let release: () => Promise<void>;
  try {
    release = await lock(file, {
      realpath: false,
      stale: SEED_FILE_LOCK_STALE_MS,
      retries: {
        retries: Math.ceil(waitMs / RETRY_INTERVAL_MS),
        factor: 1,
        minTimeout: RETRY_INTERVAL_MS,
        maxTimeout: RETRY_INTERVAL_MS,
        maxRetryTime: waitMs,
      },
      onCompromised: (error) => {
        lost = error;
      },
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ELOCKED') {
      throw new SeedFileLockError(
        `the seed file ${file} is held by another admin command (its lock ${file}.lock stayed ` +
          `taken for ${waitMs / 1000} s); nothing was written: run the command again`,
      );
    }
    throw new SeedFileLockError(`cannot lock the seed file ${file}: ${(error as Error).message}`);
  }
  return {
    assertHeld: () => {
      if (lost) {
        throw new SeedFileLockError(
          `the lock on the seed file ${file} was lost while this command held it (${lost.message}); ` +
            'nothing was written: run the command again',
        );
      }
    },
    release: async () => {
      // A lost lock may be another command's by now: it is not ours to remove.
      if (!lost) await release();
    },
  };
}
