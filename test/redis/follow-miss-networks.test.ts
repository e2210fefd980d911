import { addressKeyOf, widerNetworkKeyOf } from '../../core/auth/address-key';
import { FOLLOW_MISS_WIDER_NETWORKS } from '../../core/rate-limit/limits';
import type { RateLimiter } from '../../core';
import { createTwoCores, type TwoCores } from '../support/shared-limit-fixture';
import { freePort } from '../support/free-port';
import { SHARED_REDIS_URL, uniqueKeyPrefix } from '../support/redis-process';
import { silentLogger } from '../../core';
import { loadConfig } from '../../core/runtime';
import { createLimitersFromConfig } from '../../core/runtime/limiters-from-config';

jest.setTimeout(60_000);

/** A /64's budget here; the /56's is 4 times it, the /48's 16 times. */
const BUDGET = 2;
const [AT_56, AT_48] = FOLLOW_MISS_WIDER_NETWORKS.map(({ factor }) => BUDGET * factor) as [
  number,
  number,
];

/** The key of a client in the /64 number `n64` of the /56 number `n56` of 2001:db8:7::/48. */
const client = (n56: number, n64: number) =>
  addressKeyOf(`2001:db8:7:${((n56 << 8) | n64).toString(16)}::1234`);

/** Whether each miss is allowed, from the client keys in order, over the limiters in turn. */
async function missesFrom(limiters: RateLimiter[], keys: string[]): Promise<boolean[]> {
  const allowed: boolean[] = [];
  for (const [i, key] of keys.entries()) {
    allowed.push((await limiters[i % limiters.length]!.consume(key)).allowed);
  }
  return allowed;
}

describe('the keys of the wider networks', () => {
  it('are the /56 and /48 around a /64, and nothing around an IPv4 address', () => {
    const key = addressKeyOf('2001:db8:1:2a3:4:5:6:7');
    expect(key).toBe('2001:db8:1:2a3::/64');
    expect(widerNetworkKeyOf(key, 56)).toBe('2001:db8:1:200::/56');
    expect(widerNetworkKeyOf(key, 48)).toBe('2001:db8:1::/48');
    expect(widerNetworkKeyOf('198.51.100.7', 56)).toBeUndefined();
    expect(widerNetworkKeyOf('/run/shortlink.sock', 48)).toBeUndefined();
  });
});

describe('unknown aliases from IPv6 clients count in their /64, /56 and /48, through Redis', () => {
  let two: TwoCores;
  let limiters: RateLimiter[];

  beforeEach(async () => {
    two = await createTwoCores({
      url: SHARED_REDIS_URL,
      keyPrefix: uniqueKeyPrefix('followmiss-networks'),
      followMissLimit: BUDGET,
    });
    limiters = two.limiters.map((set) => set.followMisses!);
  });

  afterEach(() => two.close());

  it("refuses a fresh /64 once its /56's budget is spent, over two processes", async () => {
    // Every /64 of one /56 spends its own budget; the /56 holds AT_56 misses in all.
    const allowed = await missesFrom(limiters, oneFiftySixOver());
    expect(allowed.slice(0, AT_56).every(Boolean)).toBe(true);
    expect(allowed.slice(AT_56)).toEqual(Array(BUDGET).fill(false));
    expect(await two.inspector.get(two.followMissKey('2001:db8:7::/56'))).toBe(
      String(AT_56 + BUDGET),
    );
    // Another /56 of the same /48 still has its budget.
    expect((await limiters[0]!.consume(client(1, 0))).allowed).toBe(true);
  });

  it("refuses a fresh /56 once its /48's budget is spent", async () => {
    const fullFiftySixes = AT_48 / AT_56;
    const keys: string[] = [];
    for (let n56 = 0; n56 < fullFiftySixes; n56 += 1) {
      for (let n64 = 0; n64 < AT_56 / BUDGET; n64 += 1) {
        keys.push(...Array.from({ length: BUDGET }, () => client(n56, n64)));
      }
    }
    expect((await missesFrom(limiters, keys)).every(Boolean)).toBe(true);
    const refused = await limiters[1]!.consume(client(fullFiftySixes, 0));
    expect(refused.allowed).toBe(false);
    expect(refused.limit).toBe(AT_48);
    expect(await two.inspector.get(two.followMissKey('2001:db8:7::/48'))).toBe(String(AT_48 + 1));
    // The refusal is remembered by the process that heard it: no round trip for the next miss.
    expect(limiters[1]!.knownRefusal?.(client(fullFiftySixes, 1))).toMatchObject({
      allowed: false,
    });
  });

  it('counts an IPv4 address in its own budget only', async () => {
    expect(await missesFrom(limiters, Array(BUDGET + 1).fill('198.51.100.7'))).toEqual([
      ...Array(BUDGET).fill(true),
      false,
    ]);
    const keys = await two.inspector.keys(two.followMissKey('*'));
    expect(keys).toEqual([two.followMissKey('198.51.100.7')]);
  });
});

/** The misses of every /64 of one /56 (BUDGET each), then of one /64 more. */
const oneFiftySixOver = () =>
  Array.from({ length: AT_56 / BUDGET + 1 }, (_, n64) =>
    Array.from({ length: BUDGET }, () => client(0, n64)),
  ).flat();

describe('counted in the process', () => {
  it('while Redis is away: the /56 and /48 as well, and the metric reads fallback', async () => {
    const config = loadConfig({
      REDIS_URL: `redis://127.0.0.1:${await freePort()}`,
      FOLLOW_MISSES_PER_MINUTE: String(BUDGET),
    });
    const limiters = await createLimitersFromConfig(config, silentLogger);
    try {
      // What shortlink_redis_limiter_state reports: each process counts alone.
      expect(limiters.backendState?.()).toBe('fallback');
      const allowed = await missesFrom([limiters.followMisses!], oneFiftySixOver());
      expect(allowed.filter(Boolean)).toHaveLength(AT_56);
      expect(allowed.slice(AT_56)).toEqual(Array(BUDGET).fill(false));
    } finally {
      await limiters.close();
    }
  });

  it('without Redis or MongoDB: the /56 and /48 as well', async () => {
    const config = loadConfig({ FOLLOW_MISSES_PER_MINUTE: String(BUDGET) });
    const limiters = await createLimitersFromConfig(config, silentLogger);
    const allowed = await missesFrom([limiters.followMisses!], oneFiftySixOver());
    expect(allowed.slice(AT_56)).toEqual(Array(BUDGET).fill(false));
    expect(limiters.followMisses!.knownRefusal?.(client(0, 200))).toMatchObject({ limit: AT_56 });
    await limiters.close();
  });
});
