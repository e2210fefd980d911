import { ErrorCode } from '../../core';
import { startHttp, type HttpAnswer, type HttpFixture } from '../support/http-fixture';
import { SHARED_REDIS_URL, uniqueKeyPrefix } from '../support/redis-process';
import { createTwoCores, type TwoCores } from '../support/shared-limit-fixture';

jest.setTimeout(60_000);

const BUDGET = 4;

/** Two HTTP servers, each with its own core and Redis connection, on the machine's Redis. */
describe('unknown aliases limited per client address through Redis, by two servers', () => {
  let two: TwoCores;
  let servers: [HttpFixture, HttpFixture];

  beforeEach(async () => {
    two = await createTwoCores({
      url: SHARED_REDIS_URL,
      keyPrefix: uniqueKeyPrefix('followmiss'),
      followMissLimit: BUDGET,
    });
    servers = [await startHttp(two.cores[0]), await startHttp(two.cores[1])];
  });

  afterEach(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await two.close();
  });

  const follow = (server: HttpFixture, alias: string): Promise<HttpAnswer> =>
    server.request({ path: `/${alias}`, headers: { host: 'acme.link' } });

  it('answers 404 to exactly the budget of parallel misses over both servers, 429 to the rest', async () => {
    const answers = await Promise.all(
      Array.from({ length: BUDGET * 5 }, (_, i) => follow(servers[i % 2]!, `nope${i}`)),
    );
    expect(answers.filter((answer) => answer.status === 404)).toHaveLength(BUDGET);
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused).toHaveLength(BUDGET * 4);
    for (const answer of refused) {
      expect(answer.json()).toMatchObject({ data: null, code: ErrorCode.RATE_LIMITED });
      expect(Number(answer.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    }
    // Counted in the one key of the address: the budget and at least one refusal; a miss that
    // came to a server after it had heard a refusal was refused without asking Redis.
    const counted = Number(await two.inspector.get(two.followMissKey('127.0.0.1')));
    expect(counted).toBeGreaterThan(BUDGET);
    expect(counted).toBeLessThanOrEqual(BUDGET * 5);
    expect(await two.inspector.pttl(two.followMissKey('127.0.0.1'))).toBeGreaterThan(50_000);
  });

  it('refuses on the other server once it has heard the refusal once: no read, no Redis call', async () => {
    const codes = [];
    for (let i = 0; i <= BUDGET; i += 1) codes.push((await follow(servers[0], `a${i}`)).status);
    expect(codes).toEqual([...Array(BUDGET).fill(404), 429]);
    const key = two.followMissKey('127.0.0.1');
    expect(await two.inspector.get(key)).toBe(String(BUDGET + 1));
    // The first server refuses from what it remembers: Redis is not asked again.
    expect((await follow(servers[0], 'again')).status).toBe(429);
    expect(await two.inspector.get(key)).toBe(String(BUDGET + 1));
    // The second server has not heard of it: its next miss is counted in Redis and refused…
    expect((await follow(servers[1], 'b0')).status).toBe(429);
    expect(await two.inspector.get(key)).toBe(String(BUDGET + 2));
    // …and from then on it remembers too.
    expect((await follow(servers[1], 'b1')).status).toBe(429);
    expect(await two.inspector.get(key)).toBe(String(BUDGET + 2));
    expect(two.limiters.map((limiters) => limiters.monitor.mode)).toEqual(['shared', 'shared']);
  });

  it('leaves links found uncounted, on either server', async () => {
    await two.fixture.caller().links.create(two.fixture.body({ alias: 'real' }) as never);
    for (let i = 0; i < BUDGET * 2; i += 1) {
      expect((await follow(servers[i % 2]!, 'real')).status).toBe(301);
    }
    expect(await two.inspector.get(two.followMissKey('127.0.0.1'))).toBeNull();
  });
});
