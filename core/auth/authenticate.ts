import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import type { Middleware } from '../procedure/procedure';
import type { RateLimitDecision } from '../ports/rate-limiter';
import { retryAfterSeconds } from '../errors/retry-after';
import { addressKeyOf } from './address-key';
import { parseBearer } from './bearer';
import { hashSecret } from './secrets';

export interface AuthenticatedContext extends CoreContext {
  userId: string;
  tokenHash: string;
}

function tooManyFailures(decision: RateLimitDecision): ShortlinkError {
  const seconds = retryAfterSeconds(decision.resetAt);
  return new ShortlinkError('RATE_LIMITED', 'Too many failed authentication attempts; slow down.', {
    retryAfterSeconds: seconds,
  });
}

/**
 * Stage "token" (TOKEN_MISSING, TOKEN_MALFORMED, TOKEN_UNKNOWN). A valid token is served at once,
 * whatever its address's failures: a NAT or a proxy full of bad clients cannot lock out good ones,
 * and with about 238 random bits per token, telling a right guess from a wrong one gains a guesser
 * nothing. A failed check is counted against the client's address (IPv6 by its /64) after the
 * lookup, atomically, and that count alone decides between TOKEN_UNKNOWN and RATE_LIMITED: however
 * many guesses arrive in parallel, at most the budget of them are answered "unknown"
 * (TOKEN_UNKNOWN), the others RATE_LIMITED. So the limiter is called only for failures, never on
 * the path of a valid request (no round trip to Redis, or to the primary under WORKERS). A lookup
 * the store cannot answer (BACKEND_UNAVAILABLE) counts as no failure.
 */
export const authenticate: Middleware<
  CoreContext,
  Pick<AuthenticatedContext, 'userId' | 'tokenHash'>
> = async ({ ctx, next }) => {
  let tokenHash: string;
  let userId: string | null;
  try {
    tokenHash = hashSecret(parseBearer(ctx.request.authorization));
    userId = await ctx.deps.store.identities.findUserIdByTokenHash(tokenHash);
  } catch (error) {
    // A missing or malformed header (TOKEN_MISSING, TOKEN_MALFORMED) is a failed check; a store
    // fault (BACKEND_UNAVAILABLE) is none.
    throw error instanceof ShortlinkError ? await countedFailure(ctx, error) : error;
  }
  if (userId !== null) return next({ userId, tokenHash });
  // Made only on this path: an error captures a stack trace, too dear for every success.
  throw await countedFailure(ctx, new ShortlinkError('TOKEN_UNKNOWN'));
};

/**
 * Counts a failed check against the client's address: `failure`, or RATE_LIMITED past the budget.
 */
async function countedFailure(ctx: CoreContext, failure: ShortlinkError): Promise<ShortlinkError> {
  const address = ctx.request.clientAddress;
  if (address === undefined) return failure;
  const decision = await ctx.deps.authFailureLimiter.consume(addressKeyOf(address));
  return decision.allowed ? failure : tooManyFailures(decision);
}
