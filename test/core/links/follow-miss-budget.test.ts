import {
  BackendUnavailableError,
  CappedMemoryRateLimiter,
  createCore,
  createMemoryStore,
  Provisioner,
  systemClock,
  withCaches,
  type RateLimiter,
  type ResponseInfo,
  type Store,
} from '../../../core';
import { newLink } from '../../storage/fixtures';
import { countingStore } from '../../support/counting-store';
import { failureOf } from '../../support/failures';

const BUDGET = 5;

/** A limiter that counts its calls, over the in-memory one (clock the test moves). */
function countedLimiter(inner: RateLimiter) {
  const calls = { consume: 0, peek: 0 };
  const limiter: RateLimiter = {
    limit: inner.limit,
    windowSeconds: inner.windowSeconds,
    consume: (key) => {
      calls.consume += 1;
      return inner.consume(key);
    },
    peek: (key) => {
      calls.peek += 1;
      return inner.peek(key);
    },
    ...(inner.knownRefusal ? { knownRefusal: inner.knownRefusal.bind(inner) } : {}),
  };
  return { limiter, calls };
}

/**
 * A core on a counting memory store (links acme.link/here and acme.link/cold), its follow-miss
 * budget 5 per minute on the in-memory limiter, with the link cache unless `caches` is false.
 */
async function setUp(options: { caches?: boolean; limiter?: RateLimiter | null } = {}) {
  let now = Date.now();
  const backend = countingStore(createMemoryStore());
  const store: Store =
    options.caches === false
      ? backend
      : withCaches(backend, { linkCacheSize: 100, identityTtlSeconds: 10 });
  await new Provisioner(store, systemClock).saveOrganization({
    id: 'acme',
    domain: 'acme.link',
  });
  await backend.links.insert(newLink({ alias: 'here' }));
  await backend.links.insert(newLink({ alias: 'cold' }));
  const memory = new CappedMemoryRateLimiter({ limit: BUDGET, maxKeys: 100, now: () => now });
  const counted = countedLimiter(memory);
  const core = createCore({
    store,
    followMissLimiter: options.limiter === undefined ? counted.limiter : options.limiter,
  });
  const follow = async (alias: string, clientAddress?: string, response: ResponseInfo = {}) => {
    const caller = core.createCaller({ clientAddress, response });
    return caller.links.resolve({ domain: 'acme.link', alias }).then(
      (link) => link.alias,
      (error: { reason?: string }) => error.reason,
    );
  };
  // The directory's first load, before anything is counted.
  await follow('here');
  backend.tally.reset();
  return {
    backend,
    core,
    follow,
    calls: counted.calls,
    advance: (ms: number) => (now += ms),
  };
}

const misses = async (
  follow: (alias: string, address?: string) => Promise<string | undefined>,
  address: string,
  count: number,
) => {
  const codes = [];
  for (let i = 0; i < count; i += 1) codes.push(await follow(`miss${i}`, address));
  return codes;
};

describe('the budget of unknown aliases per client address', () => {
  it('answers 24 to the budget, then 19 with the seconds until the window resets', async () => {
    const t = await setUp();
    expect(await misses(t.follow, '198.51.100.7', BUDGET)).toEqual(Array(BUDGET).fill('NOT_FOUND'));
    const response: ResponseInfo = {};
    const refusal = await failureOf(
      t.core
        .createCaller({ clientAddress: '198.51.100.7', response })
        .links.resolve({ domain: 'acme.link', alias: 'one-more' }),
    );
    expect(refusal.reason).toBe('RATE_LIMITED');
    expect(refusal.reason).toBe('RATE_LIMITED');
    expect(refusal.messages).toEqual([
      'Too many unknown short links from this address; slow down.',
    ]);
    expect(refusal.retryAfterSeconds).toBe(60);
    expect(response.retryAfterSeconds).toBe(60);
    // Another address has its own budget.
    expect(await t.follow('nothere', '198.51.100.8')).toBe('NOT_FOUND');
  });

  it('refuses an address past its budget before reading the store, and counts nothing more', async () => {
    const t = await setUp();
    await misses(t.follow, '198.51.100.7', BUDGET + 1);
    expect(t.backend.tally.of('links.findByAlias')).toBe(BUDGET + 1);
    expect(t.calls.consume).toBe(BUDGET + 1);
    t.backend.tally.reset();
    // Unknown aliases, and a link the process does not hold: refused without a read.
    for (const alias of ['again', 'and-again', 'cold']) {
      expect(await t.follow(alias, '198.51.100.7')).toBe('RATE_LIMITED');
    }
    expect(t.backend.tally.total()).toBe(0);
    expect(t.calls.consume).toBe(BUDGET + 1);
  });

  it('still serves that address a link the process holds without a read (the link cache)', async () => {
    const t = await setUp();
    await misses(t.follow, '198.51.100.7', BUDGET + 1);
    t.backend.tally.reset();
    expect(await t.follow('here', '198.51.100.7')).toBe('here');
    expect(t.backend.tally.of('links.findByAlias')).toBe(0);
    // Without a link cache nothing is held: every lookup from that address is refused.
    const uncached = await setUp({ caches: false });
    await misses(uncached.follow, '198.51.100.7', BUDGET + 1);
    uncached.backend.tally.reset();
    expect(await uncached.follow('here', '198.51.100.7')).toBe('RATE_LIMITED');
    expect(uncached.backend.tally.total()).toBe(0);
  });

  it('counts misses only: links found, however many, leave the budget whole', async () => {
    const t = await setUp();
    for (let i = 0; i < BUDGET * 3; i += 1) {
      expect(await t.follow(i % 2 ? 'here' : 'cold', '198.51.100.7')).toMatch(/here|cold/);
    }
    expect(t.calls.consume).toBe(0);
    expect(await misses(t.follow, '198.51.100.7', BUDGET)).toEqual(Array(BUDGET).fill('NOT_FOUND'));
  });

  it('gives the budget back when the window resets', async () => {
    const t = await setUp();
    await misses(t.follow, '198.51.100.7', BUDGET + 1);
    t.advance(59_000);
    expect(await t.follow('nothere', '198.51.100.7')).toBe('RATE_LIMITED');
    t.advance(1_000);
    expect(await misses(t.follow, '198.51.100.7', BUDGET)).toEqual(Array(BUDGET).fill('NOT_FOUND'));
    expect(await t.follow('nothere', '198.51.100.7')).toBe('RATE_LIMITED');
  });

  it('counts IPv6 clients by their /64, and an IPv4-mapped address as its IPv4 one', async () => {
    const t = await setUp();
    const sameNetwork = [
      '2001:db8:1:2::1',
      '2001:db8:1:2::ffff',
      '2001:db8:1:2:aaaa:bbbb:cccc:dddd',
    ];
    const codes = [];
    for (let i = 0; i <= BUDGET; i += 1) {
      codes.push(await t.follow(`v6-${i}`, sameNetwork[i % sameNetwork.length]));
    }
    expect(codes).toEqual([...Array(BUDGET).fill('NOT_FOUND'), 'RATE_LIMITED']);
    expect(await t.follow('other', '2001:db8:1:3::1')).toBe('NOT_FOUND');
    expect(await t.follow('other', '2001:db8:1:2::9')).toBe('RATE_LIMITED');

    await misses(t.follow, '198.51.100.9', BUDGET);
    expect(await t.follow('mapped', '::ffff:198.51.100.9')).toBe('RATE_LIMITED');
  });

  it('answers at most the budget 24 among parallel misses from one address, the rest 19', async () => {
    const t = await setUp();
    const codes = await Promise.all(
      Array.from({ length: BUDGET * 4 }, (_, i) => t.follow(`parallel-${i}`, '198.51.100.7')),
    );
    expect(codes.filter((code) => code === 'NOT_FOUND')).toHaveLength(BUDGET);
    expect(codes.filter((code) => code === 'RATE_LIMITED')).toHaveLength(BUDGET * 3);
  });

  it('limits nothing without a client address (an in-process caller) or without a budget (null)', async () => {
    const t = await setUp();
    expect(await misses(t.follow, undefined as unknown as string, BUDGET * 2)).toEqual(
      Array(BUDGET * 2).fill('NOT_FOUND'),
    );
    expect(t.calls.consume).toBe(0);
    const off = await setUp({ limiter: null });
    expect(await misses(off.follow, '198.51.100.7', BUDGET * 2)).toEqual(
      Array(BUDGET * 2).fill('NOT_FOUND'),
    );
  });

  it('counts no miss for a lookup the store could not answer (23), nor for a text that is no alias', async () => {
    const t = await setUp();
    t.backend.links.findByAlias = () => Promise.reject(new BackendUnavailableError('store away'));
    for (let i = 0; i < BUDGET * 2; i += 1)
      expect(await t.follow(`x${i}`, '198.51.100.7')).toBe('BACKEND_UNAVAILABLE');
    for (let i = 0; i < BUDGET * 2; i += 1)
      expect(await t.follow('no/alias', '198.51.100.7')).toBe('NOT_FOUND');
    expect(t.calls.consume).toBe(0);
  });

  it('answers 23 for a miss the budget cannot count: never an unlimited pass', async () => {
    const failing: RateLimiter = {
      limit: BUDGET,
      windowSeconds: 60,
      consume: () => Promise.reject(new BackendUnavailableError('limiter away')),
      peek: () => Promise.resolve(null),
    };
    const t = await setUp({ limiter: failing });
    expect(await t.follow('nothere', '198.51.100.7')).toBe('BACKEND_UNAVAILABLE');
    expect(await t.follow('here', '198.51.100.7')).toBe('here');
  });

  it('asks a limiter without knownRefusal every time: answers stay right, lookups are not spared', async () => {
    const memory = new CappedMemoryRateLimiter({ limit: BUDGET, maxKeys: 100 });
    const plain: RateLimiter = {
      limit: memory.limit,
      windowSeconds: memory.windowSeconds,
      consume: (key) => memory.consume(key),
      peek: (key) => memory.peek(key),
    };
    const t = await setUp({ limiter: plain });
    expect(await misses(t.follow, '198.51.100.7', BUDGET + 2)).toEqual([
      ...Array(BUDGET).fill('NOT_FOUND'),
      'RATE_LIMITED',
      'RATE_LIMITED',
    ]);
    expect(t.backend.tally.of('links.findByAlias')).toBe(BUDGET + 2);
    expect(await t.follow('cold', '198.51.100.7')).toBe('cold');
  });
});
