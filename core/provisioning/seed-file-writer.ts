import writeFileAtomic from 'write-file-atomic';
import type { Seed } from './seed-file';

/** Seed files hold organization and token hashes: readable by their owner only. */
export const SEED_FILE_MODE = 0o600;

/**
 * Writes a seed file atomically (a temporary file beside it, flushed, then renamed over it), so
 * a crash or a concurrent reader never sees half a file, and with mode 0600 on every write: a
 * file created earlier with wider permissions is narrowed, not left as it was.
 */
export async function writeSeedFile(path: string, seed: Seed): Promise<void> {
  await writeFileAtomic(path, JSON.stringify(seed, null, 2) + '\n', { mode: SEED_FILE_MODE });
}
