import { ErrorCode } from '../../core';
import { startHttp, type HttpAnswer, type HttpFixture } from '../support/http-fixture';
import { SHARED_REDIS_URL, uniqueKeyPrefix } from '../support/redis-process';
import { createTwoCores, type TwoCores } from '../support/shared-limit-fixture';

jest.setTimeout(120_000);

interface Envelope {
  code: number;
  errors: string[];
}

function codeOf(answer: HttpAnswer): number {
  return (answer.json() as Envelope).code;
}

/** Two HTTP servers, each with its own core and Redis connection, on the machine's Redis. */
describe('rate limits shared through Redis by two servers', () => {
  let two: TwoCores;
  let servers: [HttpFixture, HttpFixture];

  beforeEach(async () => {
    two = await createTwoCores({ url: SHARED_REDIS_URL, keyPrefix: uniqueKeyPrefix('budget') });
    servers = [await startHttp(two.cores[0]), await startHttp(two.cores[1])];
  });

  afterEach(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await two.close();
  });

  it('gives one token exactly 60 successes out of 100 concurrent requests over both', async () => {
    const { fixture } = two;
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => servers[i % 2]!.create(fixture.body(), fixture.token)),
    );
    const succeeded = answers.filter((answer) => answer.status === 200);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(succeeded).toHaveLength(60);
    expect(refused).toHaveLength(40);
    for (const answer of refused) {
      expect(codeOf(answer)).toBe(ErrorCode.RATE_LIMITED);
      const retryAfter = Number(answer.headers['retry-after']);
      expect(retryAfter).toBeGreaterThanOrEqual(1);
      expect(retryAfter).toBeLessThanOrEqual(60);
      expect(answer.headers['x-ratelimit-remaining']).toBe('0');
    }
    // Both servers took part in the successes: the budget really was shared, not split.
    const remainders = succeeded.map((answer) => Number(answer.headers['x-ratelimit-remaining']));
    expect(new Set(remainders)).toEqual(new Set(Array.from({ length: 60 }, (_, i) => i)));
    expect(fixture.linkCount()).toBe(60);
    // Every request counted in the one Redis key, named by the token's hash, never the token.
    expect(await two.inspector.get(two.tokenKey())).toBe('100');
    const keys = await two.inspector.keys(`*${fixture.token}*`);
    expect(keys).toEqual([]);
  });

  it('shares the per-address budget for failed token checks (30), then answers 19', async () => {
    const answers = await Promise.all(
      Array.from({ length: 45 }, (_, i) =>
        servers[i % 2]!.create(two.fixture.body(), `wrong-token-${i}`),
      ),
    );
    const codes = answers.map(codeOf);
    expect(codes.filter((code) => code === ErrorCode.TOKEN_UNKNOWN)).toHaveLength(30);
    expect(codes.filter((code) => code === ErrorCode.RATE_LIMITED)).toHaveLength(15);
    for (const answer of answers.filter((a) => codeOf(a) === ErrorCode.RATE_LIMITED)) {
      expect(answer.status).toBe(429);
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Past the budget the right token is still served from this address, on either server, and
    // counts no failure.
    for (const server of servers) {
      const answer = await server.create(two.fixture.body(), two.fixture.token);
      expect(answer.status).toBe(200);
    }
    // Counted in Redis under the address: every guess, and nothing else.
    expect(await two.inspector.get(two.authFailureKey('127.0.0.1'))).toBe('45');
  });

  it('takes the remaining and reset figures of the headers from Redis', async () => {
    // Another process already used 57 of the 60 and its window ends in about 30 s.
    await two.inspector.set(two.tokenKey(), '57', 'PX', 30_000);
    const answer = await servers[1].create(two.fixture.body(), two.fixture.token);
    expect(answer.status).toBe(200);
    expect(answer.headers['x-ratelimit-limit']).toBe('60');
    expect(answer.headers['x-ratelimit-remaining']).toBe('2');
    const ttl = await two.inspector.pttl(two.tokenKey());
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(30_000);
    const reset = Number(answer.headers['x-ratelimit-reset']);
    // The window's end as Redis holds it, give or take the time the request took.
    const resetByRedis = (Date.now() + ttl) / 1000;
    expect(Math.abs(reset - resetByRedis)).toBeLessThanOrEqual(5);
    // A window of its own would have ended about 60 s from now.
    expect(reset).toBeLessThan(Date.now() / 1000 + 45);
    expect(answer.headers['ratelimit']).toMatch(/^"default";r=2;t=(\d+)$/);
    const seconds = Number(/t=(\d+)/.exec(String(answer.headers['ratelimit']))![1]);
    expect(seconds).toBeLessThanOrEqual(31);
    expect(seconds).toBeGreaterThanOrEqual(20);

    const other = await servers[0].create(two.fixture.body(), two.fixture.token);
    expect(other.headers['x-ratelimit-remaining']).toBe('1');
  });
});
