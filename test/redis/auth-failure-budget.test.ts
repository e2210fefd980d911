import { ErrorCode } from '../../core';
import { guessInParallel, tally } from '../support/guess-scenario';
import { limitersOnSharedRedis, type SharedRedisLimiters } from '../support/shared-limit-fixture';

jest.setTimeout(60_000);

/** The same scenario as test/http/auth-failure-budget.test.ts, counted in the shared Redis. */
describe.each(['REST', 'gRPC'] as const)(
  'parallel token guesses on the Redis limiter (%s)',
  (transport) => {
    let shared: SharedRedisLimiters;

    beforeEach(async () => {
      shared = await limitersOnSharedRedis('guesses');
    });
    afterEach(() => shared.close());

    it('answers "unknown" (11) to at most the budget, 19 to the rest, and still serves a valid token', async () => {
      const { limiters, keyPrefix } = shared;
      const outcome = await guessInParallel(transport, limiters.authFailures, 60);
      expect(limiters.monitor.mode).toBe('shared');
      expect(tally(outcome.codes)).toEqual({
        [ErrorCode.TOKEN_UNKNOWN]: 30,
        [ErrorCode.RATE_LIMITED]: 30,
      });
      expect(outcome.validCode).toBe(0);
      expect(outcome.laterGuessCode).toBe(ErrorCode.RATE_LIMITED);
      expect(await limiters.client.get(`${keyPrefix}:ratelimit:authfail:127.0.0.1`)).toBe('61');
    });
  },
);
