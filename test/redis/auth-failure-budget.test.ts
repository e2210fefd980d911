import type { Redis } from 'ioredis';
import { silentLogger } from '../../core';
import { createRedisLimiters, type RedisLimiters } from '../../core/adapters/redis/redis-limiters';
import { guessInParallel, tally } from '../support/guess-scenario';
import { SHARED_REDIS_URL, uniqueKeyPrefix } from './support/redis-process';
import { deleteKeys } from './support/shared-limit-fixture';

jest.setTimeout(60_000);

/** The same scenario as test/http/auth-failure-budget.test.ts, counted in the shared Redis. */
describe.each(['REST', 'gRPC'] as const)(
  'parallel token guesses on the Redis limiter (%s)',
  (transport) => {
    let limiters: RedisLimiters;
    let keyPrefix: string;

    beforeEach(async () => {
      keyPrefix = uniqueKeyPrefix('guesses');
      limiters = await createRedisLimiters({
        url: SHARED_REDIS_URL,
        keyPrefix,
        perTokenLimit: 60,
        authFailureLimit: 30,
        logger: silentLogger,
      });
    });

    afterEach(async () => {
      await deleteKeys(limiters.client as Redis, keyPrefix);
      await limiters.close();
    });

    it('answers "unknown" (11) to at most the budget, 19 to the rest, and still serves a valid token', async () => {
      const outcome = await guessInParallel(transport, limiters.authFailures, 60);
      expect(limiters.monitor.mode).toBe('shared');
      expect(tally(outcome.codes)).toEqual({ 11: 30, 19: 30 });
      expect(outcome.validCode).toBe(0);
      expect(outcome.laterGuessCode).toBe(19);
      expect(await limiters.client.get(`${keyPrefix}:ratelimit:authfail:127.0.0.1`)).toBe('61');
    });
  },
);
