import { eventually, LONG_WAIT_MS } from '../support/eventually';
import { ErrorCode, ShortlinkError, type ResponseInfo } from '../../core';
import { failureOf } from '../support/failures';
import { SHARED_REDIS_URL, uniqueKeyPrefix } from '../support/redis-process';
import { createTwoCores, type TwoCores } from '../support/shared-limit-fixture';

jest.setTimeout(120_000);

/**
 * Short windows on the machine's Redis: a key expires, and the budget is back. 5 s: a busy
 * machine once took more than 2 s between the creates and reading the key's time to live.
 */
const WINDOW_SECONDS = 5;
const WINDOW_MS = WINDOW_SECONDS * 1000;

describe('Redis keys expire with the window', () => {
  let two: TwoCores;

  beforeEach(async () => {
    two = await createTwoCores({
      url: SHARED_REDIS_URL,
      keyPrefix: uniqueKeyPrefix('expiry'),
      perTokenLimit: 3,
      authFailureLimit: 2,
      windowSeconds: WINDOW_SECONDS,
    });
  });

  afterEach(() => two.close());

  it('restores the per-token budget once the key expires', async () => {
    const { fixture: f, cores } = two;
    const call = (i: number, response: ResponseInfo = {}) =>
      cores[i % 2]!.createCaller({
        authorization: `Bearer ${f.token}`,
        clientAddress: '198.51.100.30',
        response,
      });
    // All at once, so that even a busy machine fits them into one window.
    const responses: ResponseInfo[] = [{}, {}, {}, {}];
    const outcomes = await Promise.all(
      responses.map((response, i) =>
        call(i, response)
          .links.create(f.body() as never)
          .then(
            () => 'ok',
            (error: unknown) => error,
          ),
      ),
    );
    expect(outcomes.filter((outcome) => outcome === 'ok')).toHaveLength(3);
    const refusals = outcomes.filter((outcome) => outcome instanceof ShortlinkError);
    expect(refusals).toHaveLength(1);
    const error = refusals[0]!;
    expect(error.reason).toBe('RATE_LIMITED');
    expect(error.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    expect(error.retryAfterSeconds).toBeLessThanOrEqual(WINDOW_SECONDS);
    const refusal = responses[outcomes.indexOf(error)]!;

    const ttl = await two.inspector.pttl(two.tokenKey());
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);
    // The refusal's reset is the key's expiry as Redis holds it.
    expect(refusal.rateLimit!.resetAt).toBeLessThanOrEqual(Date.now() + WINDOW_MS + 50);

    await eventually(
      async () => (await two.inspector.exists(two.tokenKey())) === 0,
      'the key to expire',
      LONG_WAIT_MS,
    );
    const response: ResponseInfo = {};
    await call(4, response).links.create(f.body() as never);
    expect(response.rateLimit).toMatchObject({ limit: 3, remaining: 2 });
    expect(await two.inspector.get(two.tokenKey())).toBe('1');
    const fresh = await two.inspector.pttl(two.tokenKey());
    expect(fresh).toBeGreaterThan(0);
    expect(fresh).toBeLessThanOrEqual(WINDOW_MS);
  });

  it('forgets failed token checks of an address once the key expires', async () => {
    const address = '198.51.100.31';
    const { fixture: f, cores } = two;
    const codes = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const caller = cores[i % 2]!.createCaller({
          authorization: 'Bearer nope',
          clientAddress: address,
        });
        return (await failureOf(caller.links.create(f.body() as never))).code;
      }),
    );
    expect(codes.sort()).toEqual([
      ErrorCode.TOKEN_UNKNOWN,
      ErrorCode.TOKEN_UNKNOWN,
      ErrorCode.RATE_LIMITED,
    ]);
    const ttl = await two.inspector.pttl(two.authFailureKey(address));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(WINDOW_MS);

    await eventually(
      async () => (await two.inspector.exists(two.authFailureKey(address))) === 0,
      'the key to expire',
      LONG_WAIT_MS,
    );
    const caller = cores[1].createCaller({
      authorization: `Bearer ${f.token}`,
      clientAddress: address,
    });
    const link = await caller.links.create(f.body() as never).catch((e: unknown) => e);
    expect(link).not.toBeInstanceOf(ShortlinkError);
  });
});
