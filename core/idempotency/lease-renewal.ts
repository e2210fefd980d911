import type { CoreDeps } from '../context';
import type { IdempotencyScope } from '../ports/idempotency-store';

/** Renewals per lease: a renewal may come a third of a lease late and still be in time. */
const RENEWALS_PER_LEASE = 3;

/**
 * Keeps a claim's lease alive while its request runs: every third of a lease, the running record
 * is given a full lease again (IdempotencyStore.renew). So a retry answers IDEMPOTENCY_KEY_IN_USE
 * for as long as the request runs, however long its stages take (a slow reputation lookup, a store
 * that answers late), and a crashed process still frees the key one lease after its last renewal. A
 * request whose process stops (SIGSTOP, a frozen VM) renews nothing and may lose the key to a
 * retry: the link stage's conditional insert is what keeps one key from making two links then.
 * Stops by itself once the record is no longer the request's. Returns the function that stops it.
 */
export function keepLeaseAlive(
  deps: Pick<CoreDeps, 'store' | 'clock' | 'idempotencyLeaseSeconds' | 'logger'>,
  scope: IdempotencyScope,
  owner: string,
): () => void {
  const { store, clock, idempotencyLeaseSeconds, logger } = deps;
  const leaseMs = idempotencyLeaseSeconds * 1000;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;

  const renew = async () => {
    let held = true;
    try {
      const expiresAt = new Date(clock.now().getTime() + leaseMs);
      held = await store.idempotency.renew(scope, owner, expiresAt);
    } catch (error) {
      // Tried again at the next turn: the lease left is still two thirds of one.
      logger.warn({ err: error }, 'renewing an idempotency lease failed');
    }
    if (held) schedule();
  };
  // One renewal at a time (each waits for the last), and never what keeps the process alive.
  function schedule() {
    if (stopped) return;
    timer = setTimeout(() => void renew(), leaseMs / RENEWALS_PER_LEASE);
    timer.unref();
  }

  schedule();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
