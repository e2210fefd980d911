import { BackendUnavailableError } from '../../errors/shortlink-error';

/**
 * How long a write that must be durable before it answers waits for its fsync, and how long a
 * close waits for the last writes to reach the disk. lmdb-js's flush promises never reject: after
 * a commit that failed (a full disk), or an fsync that hangs, they stay pending, and the caller
 * (and the client behind it, or a shutdown) would wait for ever.
 */
export const FLUSH_TIMEOUT_MS = 10_000;

/**
 * Resolves once every commit made so far is on disk; rejects (BACKEND_UNAVAILABLE) past the bound.
 */
type UntilFlushed = (operation: string) => Promise<void>;

/**
 * `source.flushed` (an lmdb-js database: a thenable for "the last commit is synced to disk")
 * awaited with a bound. Read at each call, after the caller's own commit resolved, so the flush
 * it waits for covers that commit (a later flush covers every earlier commit).
 */
export function untilFlushed(
  source: { readonly flushed: PromiseLike<unknown> },
  path: string,
  timeoutMs: number = FLUSH_TIMEOUT_MS,
): UntilFlushed {
  return (operation) =>
    within(
      source.flushed,
      timeoutMs,
      () =>
        new BackendUnavailableError(
          `the LMDB store in ${path} did not confirm within ${timeoutMs} ms that ${operation} ` +
            'reached the disk (fsync); the write was committed and may be kept',
        ),
    );
}

/**
 * Closes the environment, which first waits for its last writes to reach the disk; past the
 * bound it rejects (the environment stays open until the process exits).
 */
export function closeWithin(
  root: { close(): Promise<void> },
  path: string,
  timeoutMs: number = FLUSH_TIMEOUT_MS,
): Promise<void> {
  return within(
    root.close(),
    timeoutMs,
    () =>
      new BackendUnavailableError(
        `the LMDB store in ${path} did not confirm within ${timeoutMs} ms that its last ` +
          'writes reached the disk; it was not closed',
      ),
  );
}

async function within(
  pending: PromiseLike<unknown>,
  timeoutMs: number,
  late: () => Error,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<'expired'>((resolve) => {
    timer = setTimeout(resolve, timeoutMs, 'expired');
  });
  try {
    const outcome = await Promise.race([Promise.resolve(pending).then(() => 'done'), expired]);
    if (outcome === 'expired') throw late();
  } finally {
    clearTimeout(timer);
  }
}
