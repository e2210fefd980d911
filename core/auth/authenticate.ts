import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import type { Middleware } from '../procedure/procedure';
import type { RateLimitDecision } from '../ports/rate-limiter';
import { retryAfterSeconds } from '../rate-limit/retry-after';
import { failureKeyOf } from './address-key';
import { parseBearer } from './bearer';
import { hashSecret } from './secrets';

export interface AuthenticatedContext extends CoreContext {
  userId: string;
  tokenHash: string;
}

function tooManyFailures(ctx: CoreContext, decision: RateLimitDecision): ShortlinkError {
  const seconds = retryAfterSeconds(decision.resetAt);
  ctx.response.retryAfterSeconds = seconds;
  return new ShortlinkError('RATE_LIMITED', 'Too many failed authentication attempts; slow down.', {
    retryAfterSeconds: seconds,
  });
}

/**
 * Stage "token" (codes 3, 10, 11). Every check is counted against the client's address (IPv6 by
 * its /64) before the token is looked up, atomically, and the point is given back when the token
 * turns out valid. So however many guesses arrive in parallel, at most the budget of them is
 * answered "unknown" (11); the others get 19. A valid token is always served, whatever its
 * address's failures: a NAT or a proxy full of bad clients cannot lock out good ones, and with
 * about 238 random bits per token, telling a right guess from a wrong one gains a guesser nothing.
 */
export const authenticate: Middleware<CoreContext, AuthenticatedContext> = async ({
  ctx,
  next,
}) => {
  const address = ctx.request.clientAddress;
  const failures = ctx.deps.authFailureLimiter;
  const key = address === undefined ? undefined : failureKeyOf(address);
  const counted = key === undefined ? undefined : await failures.consume(key);
  let userId: string | null = null;
  let tokenHash = '';
  let failure: ShortlinkError | undefined;
  try {
    tokenHash = hashSecret(parseBearer(ctx.request.authorization));
    userId = await ctx.deps.store.identities.findUserIdByTokenHash(tokenHash);
  } catch (error) {
    if (!(error instanceof ShortlinkError)) {
      // The store could not answer (23): that is no failed check, so the point goes back.
      if (key !== undefined) await failures.reward(key).catch(() => undefined);
      throw error;
    }
    failure = error;
  }
  if (userId !== null) {
    if (key !== undefined) await failures.reward(key);
    return next({ ...ctx, userId, tokenHash });
  }
  if (counted && !counted.allowed) throw tooManyFailures(ctx, counted);
  // Made only on this path: an error captures a stack trace, too dear for every success.
  throw failure ?? new ShortlinkError('TOKEN_UNKNOWN', 'The access token is unknown or revoked.');
};
