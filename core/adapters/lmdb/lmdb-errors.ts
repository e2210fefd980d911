import { messageOf } from '../../errors/message-of';
import { BackendUnavailableError, StoreRuleError } from '../../errors/shortlink-error';

/**
 * True for failures of the storage itself: a commit the OS refused (full disk, I/O error,
 * read-only file system), LMDB's own MDB_* errors, or an environment already closed. A TypeError
 * from a bug in this adapter is not one of them and stays what it is (INTERNAL), nor is a write
 * refused by a store rule.
 */
function isStorageFailure(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  // A store rule's refusal, whose message holds ids ("read-only", "shop is closed").
  if (error instanceof StoreRuleError) return false;
  if ('commitError' in error || 'code' in error) return true;
  const message = messageOf(error);
  return /MDB_|commit failed|(has been|already|is) closed|closed database|no space|read-only|I\/O error/i.test(
    message,
  );
}

/** Whether the store an operation runs on was closed (`LmdbDatabases.closed`). */
interface ClosedFlag {
  readonly closed: boolean;
}

/**
 * Refuses an operation on a closed store before it reaches lmdb-js: there a read throws a
 * message of its own and a write never settles while lmdb-js throws from a timer (an uncaught
 * exception that stops the process).
 */
function closedStoreError(dbs: ClosedFlag, path: string, operation: string): Error | undefined {
  if (!dbs.closed) return undefined;
  return new BackendUnavailableError(
    `the LMDB store in ${path} is closed: ${operation} was not run`,
  );
}

/** Runs one storage operation, reporting a storage failure as BackendUnavailableError. */
export async function onLmdb<T>(
  dbs: ClosedFlag,
  path: string,
  operation: string,
  run: () => Promise<T>,
): Promise<T> {
  const closed = closedStoreError(dbs, path, operation);
  if (closed) throw closed;
  try {
    return await run();
  } catch (error) {
    const reason = await commitFailureOf(error);
    throw asStorageError(reason ?? error, path, operation);
  }
}

/**
 * lmdb-js rejects every write of a failed commit with "Commit failed" and puts the OS's reason
 * (ENOSPC, EIO, ...) in a separate promise, `commitError`, which usually rejects in the same
 * tick but, on a busy process, can come later. It is awaited for up to COMMIT_REASON_WAIT_MS, so
 * the message says why when it can, and the promise is never left unhandled (an unhandled
 * rejection would crash the process).
 */
const COMMIT_REASON_WAIT_MS = 1000;

/**
 * A promise-like, told by its `then` rather than `instanceof Promise`: lmdb-js may hand out a
 * promise of another realm (a jest worker that loaded lmdb-js for an earlier test file; vm
 * contexts), and a check by class let such a rejection go unhandled.
 */
function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    'then' in value &&
    typeof value.then === 'function'
  );
}

async function commitFailureOf(error: unknown): Promise<unknown> {
  const pending =
    typeof error === 'object' && error !== null && 'commitError' in error
      ? error.commitError
      : undefined;
  if (!isThenable(pending)) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, COMMIT_REASON_WAIT_MS, undefined);
  });
  try {
    return await Promise.race([
      pending.then(
        () => undefined,
        (reason: unknown) => reason,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}

/** BackendUnavailableError for a storage failure; anything else unchanged (a real bug). */
function asStorageError(error: unknown, path: string, operation: string): Error {
  if (!isStorageFailure(error)) {
    return error instanceof Error ? error : new Error(messageOf(error));
  }
  return new BackendUnavailableError(
    `the LMDB store in ${path} failed during ${operation}: ${messageOf(error)}`,
    { cause: error },
  );
}

/** The same for synchronous reads (lmdb-js reads are synchronous, from the memory map). */
export function readLmdb<T>(
  dbs: ClosedFlag,
  path: string,
  operation: string,
  run: () => T,
): Promise<T> {
  const closed = closedStoreError(dbs, path, operation);
  if (closed) return Promise.reject(closed);
  try {
    return Promise.resolve(run());
  } catch (error) {
    return Promise.reject(asStorageError(error, path, operation));
  }
}
