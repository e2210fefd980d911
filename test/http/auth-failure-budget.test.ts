import { CappedMemoryRateLimiter, ErrorCode } from '../../core';
import { guessInParallel, tally } from '../support/guess-scenario';

/**
 * Failed token checks are counted atomically after the (here slow) lookup, and the count decides
 * the answer, so parallel guesses cannot all pass; the right token is still served from that
 * address.
 */
describe.each(['REST', 'gRPC'] as const)(
  'parallel token guesses on the in-memory limiter (%s)',
  (transport) => {
    it('answers "unknown" (11) to at most the budget, 19 to the rest, and still serves a valid token', async () => {
      const limiter = new CappedMemoryRateLimiter({ limit: 30, maxKeys: 100 });
      const outcome = await guessInParallel(transport, limiter, 60);
      expect(tally(outcome.codes)).toEqual({
        [ErrorCode.TOKEN_UNKNOWN]: 30,
        [ErrorCode.RATE_LIMITED]: 30,
      });
      expect(outcome.validCode).toBe(0);
      expect(outcome.fixture.linkCount()).toBe(1);
      // The valid request counted no failure: the address stays exactly at its budget.
      expect(outcome.laterGuessCode).toBe(ErrorCode.RATE_LIMITED);
      expect(await limiter.peek('127.0.0.1')).toMatchObject({ remaining: 0 });
    });
  },
);
