import type { RootDatabase } from 'lmdb';

/**
 * Awaits a write until it is on disk, not merely committed. The environment is opened with
 * `separateFlushed`, so a write's promise resolves at commit (visible to every process) and
 * carries a `flushed` promise that resolves once the OS reports the commit synced. Transactions
 * have no such property; the environment's `flushed` covers them (and any commit before).
 */
export async function durably<T>(root: RootDatabase, write: Promise<T>): Promise<T> {
  const result = await write;
  const flushed = (write as Promise<T> & { flushed?: PromiseLike<unknown> }).flushed;
  await (flushed ?? root.flushed);
  return result;
}
