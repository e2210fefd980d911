import type { CoreContext } from '../context';
import { ShortlinkError } from '../errors/shortlink-error';
import type { Middleware } from '../procedure/procedure';
import type { RateLimitDecision } from '../ports/rate-limiter';
import { retryAfterSeconds } from '../rate-limit/retry-after';
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
 * Stage "token" (codes 3, 10, 11). Failed checks count against the client's address; an address
 * over its budget is refused (code 19) before its token is even looked at, so a guesser cannot
 * tell a right token from a wrong one at speed.
 */
export const authenticate: Middleware<CoreContext, AuthenticatedContext> = async ({
  ctx,
  next,
}) => {
  const address = ctx.request.clientAddress;
  const failures = ctx.deps.authFailureLimiter;
  if (address !== undefined) {
    const state = await failures.peek(address);
    if (state && !state.allowed) throw tooManyFailures(ctx, state);
  }
  let userId: string | null = null;
  let tokenHash = '';
  let failure: ShortlinkError | undefined;
  try {
    tokenHash = hashSecret(parseBearer(ctx.request.authorization));
    userId = await ctx.deps.store.identities.findUserIdByTokenHash(tokenHash);
  } catch (error) {
    if (!(error instanceof ShortlinkError)) throw error;
    failure = error;
  }
  if (userId !== null) return next({ ...ctx, userId, tokenHash });
  if (address !== undefined) {
    const decision = await failures.consume(address);
    if (!decision.allowed) throw tooManyFailures(ctx, decision);
  }
  // Made only on this path: an error captures a stack trace, too dear for every success.
  throw failure ?? new ShortlinkError('TOKEN_UNKNOWN', 'The access token is unknown or revoked.');
};
