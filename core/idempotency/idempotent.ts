import { randomUUID } from 'node:crypto';
import { ShortlinkError, toShortlinkError } from '../errors/shortlink-error';
import { toShortLink, type ShortLink } from '../links/short-link';
import type { LinkRecord } from '../ports/link-store';
import type {
  CompletedRecord,
  IdempotencyScope,
  RecordedOutcome,
} from '../ports/idempotency-store';
import type { Middleware } from '../procedure/procedure';
import { requestFingerprint } from './fingerprint';
import { withPendingCompletion, type PendingCompletion } from './pending-completion';
import type { IdempotencyKeyContext } from './idempotency-key';
import { failureOutcome, isRecordedFailure, replay, successOutcome } from './recorded-outcome';

/** What a client waits before retrying a key whose first request still runs. */
const KEY_IN_USE_RETRY_AFTER_SECONDS = 1;

const secondsAfter = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

/**
 * Stage "idempotency" (replay, 25, 26), right after the body stage because it needs the body.
 * The first request under a key claims it (a running record with a short lease), runs the
 * remaining stages and records its outcome; a repeat gets that outcome again, or 26 while the
 * first still runs, or 25 when it means another request. Server faults (1, 23) release the key.
 */
export const idempotent: Middleware<IdempotencyKeyContext, IdempotencyKeyContext> = async ({
  ctx,
  rawInput,
  next,
  answer,
}) => {
  const key = ctx.idempotencyKey;
  if (key === undefined) return next(ctx);
  const { store, clock, idempotencyLeaseSeconds, idempotencyTtlSeconds, logger } = ctx.deps;
  const scope: IdempotencyScope = { userId: ctx.userId, key };
  const fingerprint = requestFingerprint(rawInput);
  const owner = randomUUID();
  const now = clock.now();
  const claim = await store.idempotency
    .claim(
      scope,
      {
        state: 'running',
        owner,
        fingerprint,
        expiresAt: secondsAfter(now, idempotencyLeaseSeconds),
      },
      now,
    )
    .catch((error: unknown) => {
      // A claim that failed may still have been written (MongoDB: the upsert reached the server,
      // its answer did not): release it, as any server fault does, or retries would answer 26
      // until the lease ends while nothing runs. The release acts on this claim's owner only. Not
      // awaited: against a server that cannot be reached it would double the wait for the 23.
      store.idempotency.release(scope, owner).catch((releaseError: unknown) => {
        logger.error({ err: releaseError }, 'releasing an idempotency key failed');
      });
      throw error;
    });

  if (!claim.claimed) {
    const { existing } = claim;
    if (existing.fingerprint !== fingerprint) {
      throw new ShortlinkError(
        'IDEMPOTENCY_KEY_REUSED',
        'This idempotency key was already used for a different request.',
      );
    }
    if (existing.state === 'running') {
      ctx.response.retryAfterSeconds = KEY_IN_USE_RETRY_AFTER_SECONDS;
      throw new ShortlinkError(
        'IDEMPOTENCY_KEY_IN_USE',
        'A request with this idempotency key is still running; retry shortly.',
        { retryAfterSeconds: KEY_IN_USE_RETRY_AFTER_SECONDS },
      );
    }
    // The record may be one a request still running has just written, whose fsync has not been
    // reported yet: answer it only once it would survive a power loss, as its first request does
    // (a no-op on stores whose writes are durable when they answer).
    await store.flush();
    ctx.response.idempotentReplayed = true;
    return answer(replay(existing.outcome));
  }

  const record = async (outcome: RecordedOutcome) => {
    try {
      // Inside the try: a clock that fails here must not turn a link already stored (or a recorded
      // failure) into a code 1 that leaves its key running; it is a failed recording like another.
      const expiresAt = secondsAfter(clock.now(), idempotencyTtlSeconds);
      await store.idempotency.complete(scope, owner, {
        state: 'completed',
        fingerprint,
        outcome,
        expiresAt,
      });
    } catch (error) {
      // The answer stands (a link may exist); the key stays blocked until its lease ends.
      logger.error({ err: error }, 'recording an idempotency outcome failed');
    }
  };

  const pending: PendingCompletion = {
    scope,
    owner,
    recorded: false,
    completed: (link: LinkRecord): CompletedRecord => ({
      state: 'completed',
      fingerprint,
      outcome: successOutcome(toShortLink(link)),
      expiresAt: secondsAfter(clock.now(), idempotencyTtlSeconds),
    }),
  };
  let result: Awaited<ReturnType<typeof next>>;
  try {
    result = await next(withPendingCompletion(ctx, pending));
  } catch (error) {
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
  }
  // links.create's resolver, the end of this chain, returns a ShortLink.
  // Recorded with the link, in one write, when the store could; otherwise here.
  if (!pending.recorded) await record(successOutcome(result.output as ShortLink));
  // One disk sync for the link and its record (the resolver leaves it to this stage when a key
  // is present). Should it fail (23), the record holds the success: a retry gets the replay.
  await store.flush();
  return result;
};
