import { randomUUID } from 'node:crypto';
import { ShortlinkError, toShortlinkError } from '../errors/shortlink-error';
import type { LinkRecord } from '../ports/link-store';
import type {
  CompletedRecord,
  IdempotencyRecord,
  IdempotencyScope,
  RecordedOutcome,
} from '../ports/idempotency-store';
import {
  failWith,
  type Middleware,
  type MiddlewareOptions,
  type MiddlewareResult,
} from '../procedure/procedure';
import { keepLeaseAlive } from './lease-renewal';
import { ClaimLostError, type PendingCompletion } from './pending-completion';
import type { IdempotencyKeyContext } from './idempotency-key';
import { failureOutcome, isRecordedFailure, replay, successOutcome } from './recorded-outcome';

/** Logged when a keyed create found its claim taken over at its insert (and stored nothing). */
export const CLAIM_LOST_MESSAGE =
  'an idempotent create lost its claim to another request (paused past its lease): nothing stored';

/** What a client waits before retrying a key whose first request still runs. */
const KEY_IN_USE_RETRY_AFTER_SECONDS = 1;

const secondsAfter = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/**
 * What the stage adds for the link stage: a keyed create's answer, to be written with its link
 * (absent without a key).
 */
export interface Completion {
  pendingCompletion: PendingCompletion | undefined;
}
type Options = MiddlewareOptions<IdempotencyKeyContext, Completion>;

/** What the stage needs to know of the procedure it guards. */
interface IdempotentProcedure {
  /** What a request means, as a hash: two requests with the same meaning share a fingerprint. */
  fingerprint: (rawInput: unknown) => string;
  /** The procedure's answer for the record it stored (recorded with the key, replayed as is). */
  answerOf: (link: LinkRecord) => unknown;
}
type Result = MiddlewareResult<Completion>;

type Claim = { claimed: true; owner: string } | { claimed: false; existing: IdempotencyRecord };

/** Claims the key for a new owner (a running record with a lease). */
async function claimKey(
  ctx: IdempotencyKeyContext,
  scope: IdempotencyScope,
  fingerprint: string,
): Promise<Claim> {
  const { store, clock, idempotencyLeaseSeconds, logger } = ctx.deps;
  const owner = randomUUID();
  const now = clock.now();
  const running = {
    state: 'running' as const,
    owner,
    fingerprint,
    expiresAt: secondsAfter(now, idempotencyLeaseSeconds),
  };
  const claim = await store.idempotency.claim(scope, running, now).catch((error: unknown) => {
    // A claim that failed may still have been written (MongoDB: the upsert reached the server,
    // its answer did not): release it, as any server fault does, or retries would answer
    // IDEMPOTENCY_KEY_IN_USE until the lease ends while nothing runs. The release acts on this
    // claim's owner only. Not awaited: against a server that cannot be reached it would double the
    // wait for the BACKEND_UNAVAILABLE.
    store.idempotency.release(scope, owner).catch((releaseError: unknown) => {
      logger.error({ err: releaseError }, 'releasing an idempotency key failed');
    });
    throw error;
  });
  return claim.claimed ? { claimed: true, owner } : claim;
}

function keyInUse(): ShortlinkError {
  return new ShortlinkError('IDEMPOTENCY_KEY_IN_USE', undefined, {
    retryAfterSeconds: KEY_IN_USE_RETRY_AFTER_SECONDS,
  });
}

/**
 * The answer to a request whose key another request holds: its replay, IDEMPOTENCY_KEY_REUSED or
 * IDEMPOTENCY_KEY_IN_USE.
 */
async function answerHeld(
  ctx: IdempotencyKeyContext,
  existing: IdempotencyRecord,
  fingerprint: string,
  answer: Options['answer'],
): Promise<Result> {
  if (existing.fingerprint !== fingerprint) {
    throw new ShortlinkError('IDEMPOTENCY_KEY_REUSED');
  }
  if (existing.state === 'running') throw keyInUse();
  // The record may be one a request still running has just written, whose fsync has not been
  // reported yet: answer it only once it would survive a power loss, as its first request does
  // (a no-op on stores whose writes are durable when they answer).
  await ctx.deps.store.flush();
  // The replay mark goes to the transport with the answer, or with the recorded failure.
  const replayed = { idempotentReplayed: true };
  let output: unknown;
  try {
    output = replay(existing.outcome);
  } catch (failure) {
    throw failWith(failure, replayed);
  }
  return answer(output, replayed);
}

/**
 * Runs the rest of the chain under the claim of `owner` and records its outcome: a success with
 * its link (the store writes both in one, while the claim is still this one's), a recorded
 * failure after it; a server fault (INTERNAL, BACKEND_UNAVAILABLE) releases the key instead. The
 * lease is kept alive meanwhile. Answers 'lost' when the store refused to insert because another
 * request had taken the claim over: nothing was stored, and nothing is recorded or released.
 */
async function runClaimed(
  ctx: IdempotencyKeyContext,
  scope: IdempotencyScope,
  fingerprint: string,
  owner: string,
  next: Options['next'],
  answerOf: IdempotentProcedure['answerOf'],
): Promise<Result | 'lost'> {
  const { store, clock, idempotencyTtlSeconds, logger } = ctx.deps;
  const record = async (outcome: RecordedOutcome) => {
    try {
      // Inside the try: a clock that fails here must not turn a recorded failure into an INTERNAL
      // that leaves its key running; it is a failed recording like another.
      const expiresAt = secondsAfter(clock.now(), idempotencyTtlSeconds);
      await store.idempotency.complete(scope, owner, {
        state: 'completed',
        fingerprint,
        outcome,
        expiresAt,
      });
    } catch (error) {
      // The failure stands; the key stays blocked until its lease ends.
      logger.error({ err: error }, 'recording an idempotency outcome failed');
    }
  };

  const pending: PendingCompletion = {
    scope,
    owner,
    completed: (link: LinkRecord): CompletedRecord => ({
      state: 'completed',
      fingerprint,
      outcome: successOutcome(answerOf(link)),
      expiresAt: secondsAfter(clock.now(), idempotencyTtlSeconds),
    }),
  };
  const stopRenewing = keepLeaseAlive(ctx.deps, scope, owner);
  let result: Result;
  try {
    result = await next({ pendingCompletion: pending });
  } catch (error) {
    if (error instanceof ClaimLostError) return 'lost';
    const failure = toShortlinkError(error);
    if (isRecordedFailure(failure)) {
      await record(failureOutcome(failure));
      await store.flush().catch((flushError: unknown) => {
        // The failure stands; a power loss may now lose its record, and a retry runs again.
        logger.error(
          { err: flushError },
          'a recorded idempotency outcome was not confirmed on disk',
        );
      });
    } else {
      await store.idempotency.release(scope, owner).catch((releaseError: unknown) => {
        logger.error({ err: releaseError }, 'releasing an idempotency key failed');
      });
    }
    throw error;
  } finally {
    stopRenewing();
  }
  // The store recorded the answer with the link, in one write, which the link stage has synced
  // to disk. Had that sync failed (BACKEND_UNAVAILABLE), the record would hold the success (the
  // release above acts on a running record only): a retry gets the replay.
  return result;
}

/**
 * Stage "idempotency" (replay, IDEMPOTENCY_KEY_REUSED, IDEMPOTENCY_KEY_IN_USE), after the
 * organization stage: a replay is answered only to a caller who passes that stage now. The first
 * request under a key claims it (a running record with a lease, kept alive while it runs), runs the
 * remaining stages and records its outcome; a repeat gets that outcome again, or
 * IDEMPOTENCY_KEY_IN_USE while the first still runs, or IDEMPOTENCY_KEY_REUSED when it means
 * another request. Server faults (INTERNAL, BACKEND_UNAVAILABLE) release the key. A request that
 * lost its claim (its process was paused past the lease and a retry took the key) stores nothing
 * and answers as a retry would: the recorded answer, or IDEMPOTENCY_KEY_IN_USE while the other
 * request runs. A wrapper the procedure applies with what it alone knows: what its requests mean,
 * and its answer.
 */
export const idempotent =
  (procedure: IdempotentProcedure): Middleware<IdempotencyKeyContext, Completion> =>
  async ({ ctx, rawInput, next, answer }) => {
    const key = ctx.idempotencyKey;
    if (key === undefined) return next({ pendingCompletion: undefined });
    const scope: IdempotencyScope = { userId: ctx.userId, key };
    const fingerprint = procedure.fingerprint(rawInput);

    const claim = await claimKey(ctx, scope, fingerprint);
    if (!claim.claimed) return answerHeld(ctx, claim.existing, fingerprint, answer);
    const outcome = await runClaimed(
      ctx,
      scope,
      fingerprint,
      claim.owner,
      next,
      procedure.answerOf,
    );
    if (outcome !== 'lost') return outcome;

    ctx.deps.logger.warn({ userId: scope.userId }, CLAIM_LOST_MESSAGE);
    const now = await claimKey(ctx, scope, fingerprint);
    if (!now.claimed) return answerHeld(ctx, now.existing, fingerprint, answer);
    // The request that took the key over is gone too (released after a fault): leave the key
    // free and let the client's retry run, as IDEMPOTENCY_KEY_IN_USE asks it to.
    await ctx.deps.store.idempotency.release(scope, now.owner);
    throw keyInUse();
  };
