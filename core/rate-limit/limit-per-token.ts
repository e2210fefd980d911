import type { AuthenticatedContext } from '../auth/authenticate';
import { ShortlinkError } from '../errors/shortlink-error';
import type { RateLimitInfo } from '../context';
import { failWith, type Middleware } from '../procedure/procedure';
import { retryAfterSeconds } from '../errors/retry-after';

/**
 * Stage "rate limit" (RATE_LIMITED): every request that passed the token check counts, whatever its
 * outcome. The key is the token's hash, so no secret reaches the limiter's store. The budget's
 * state is what every later answer tells the transport (the rate-limit headers): the stage adds
 * it to the context, or to its own refusal.
 */
export const limitPerToken: Middleware<
  AuthenticatedContext,
  { rateLimit: RateLimitInfo }
> = async ({ ctx, next }) => {
  const limiter = ctx.deps.rateLimiter;
  const decision = await limiter.consume(ctx.tokenHash);
  const { limit, remaining, resetAt } = decision;
  const rateLimit = { limit, remaining, resetAt, windowSeconds: limiter.windowSeconds };
  if (!decision.allowed) {
    const seconds = retryAfterSeconds(resetAt);
    const refusal = new ShortlinkError(
      'RATE_LIMITED',
      tokenLimitMessage(limit, limiter.windowSeconds, seconds),
      { retryAfterSeconds: seconds },
    );
    throw failWith(refusal, { rateLimit });
  }
  return next({ rateLimit });
};

/** The message of a token past its budget: the limit, its window, the seconds to wait. */
export function tokenLimitMessage(limit: number, windowSeconds: number, seconds: number): string {
  return `Rate limit of ${limit} requests per ${windowName(windowSeconds)} exceeded; retry in ${seconds} s.`;
}

/** "minute" for the product's window; a limiter an embedder gives may count over another. */
function windowName(seconds: number): string {
  return seconds === 60 ? 'minute' : `${seconds} s`;
}
