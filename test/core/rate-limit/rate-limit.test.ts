import { createMemoryRateLimiter, hashSecret, type ResponseInfo } from '../../../core';
import { createTestCore } from '../../support/core-fixture';
import { failureOf } from '../../support/failures';

describe('links.create: the per-token rate limit (code 19)', () => {
  it('allows the limit, then refuses with 19 and a retry time', async () => {
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 3, keyPrefix: 'token-test' }),
    });
    const remaining: number[] = [];
    for (let i = 0; i < 3; i += 1) {
      const response: ResponseInfo = {};
      await f.caller({ response }).links.create(f.body() as never);
      remaining.push(response.rateLimit!.remaining);
      expect(response.rateLimit!.limit).toBe(3);
      expect(response.retryAfterSeconds).toBeUndefined();
    }
    expect(remaining).toEqual([2, 1, 0]);

    const response: ResponseInfo = {};
    const error = await failureOf(f.caller({ response }).links.create(f.body() as never));
    expect(error.reason).toBe('RATE_LIMITED');
    expect(error.messages).toHaveLength(1);
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(60);
    expect(response.retryAfterSeconds).toBe(error.retryAfterSeconds);
    expect(response.rateLimit).toMatchObject({ limit: 3, remaining: 0 });
    expect(response.rateLimit!.resetAt).toBeGreaterThan(Date.now());
    expect(f.linkCount()).toBe(3);
  });

  it('counts per token: another token keeps its own budget', async () => {
    const f = await createTestCore({
      rateLimiter: createMemoryRateLimiter({ limit: 1, keyPrefix: 'token-test' }),
    });
    await f.caller().links.create(f.body() as never);
    expect((await failureOf(f.caller().links.create(f.body() as never))).reason).toBe(
      'RATE_LIMITED',
    );
    // bob is no member of acme: he gets past the rate limit to the organization stage.
    const bob = f.caller({ authorization: `Bearer ${f.outsiderToken}` });
    expect((await failureOf(bob.links.create(f.body() as never))).reason).toBe('NOT_A_MEMBER');
  });

  it('counts every request that passed the token check, whatever its outcome', async () => {
    const limiter = createMemoryRateLimiter({ limit: 2, keyPrefix: 'token-test' });
    const f = await createTestCore({ rateLimiter: limiter });
    expect((await failureOf(f.caller().links.create({} as never))).reason).toBe(
      'ORGANIZATION_KEY_MISSING',
    );
    expect((await failureOf(f.caller().links.create(f.body({ url: 'x' }) as never))).reason).toBe(
      'URL_INVALID',
    );
    expect((await failureOf(f.caller().links.create(f.body() as never))).reason).toBe(
      'RATE_LIMITED',
    );
    const state = await limiter.peek(hashSecret(f.token));
    expect(state?.allowed).toBe(false);
  });

  it('keys the limiter by the token hash, never by the token', async () => {
    const limiter = createMemoryRateLimiter({ limit: 5, keyPrefix: 'token-test' });
    const f = await createTestCore({ rateLimiter: limiter });
    await f.caller().links.create(f.body() as never);
    expect(await limiter.peek(f.token)).toBeNull();
    expect((await limiter.peek(hashSecret(f.token)))?.remaining).toBe(4);
  });

  it('defaults to 60 requests per minute: the 61st is refused', async () => {
    const f = await createTestCore();
    for (let i = 1; i <= 60; i += 1) {
      const response: ResponseInfo = {};
      await f.caller({ response }).links.create(f.body() as never);
      expect(response.rateLimit).toMatchObject({ limit: 60, remaining: 60 - i });
    }
    const error = await failureOf(f.caller().links.create(f.body() as never));
    expect(error.reason).toBe('RATE_LIMITED');
    expect(f.linkCount()).toBe(60);
  });
});
