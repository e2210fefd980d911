import {
  createCore,
  createMemoryStore,
  Provisioner,
  systemClock,
  withCaches,
  type Clock,
  type Core,
  type NewLink,
  type UrlGuard,
} from '../../../core';
import { newLink } from '../../storage/fixtures';
import { countingStore, type CountingStore } from '../../support/counting-store';
import { failureOf } from '../../support/failures';

/**
 * links.resolve of links with an expiry or a visit limit: refused with LINK_EXPIRED after the
 * LINK_DISABLED checks; only a visit (`visit: true`) counts against max_visits.
 */

const T0 = Date.parse('2027-03-01T12:00:00.000Z');

/** A clock the test moves, counting its reads. */
function movableClock(start: number) {
  let now = start;
  let reads = 0;
  const clock: Clock = {
    now: () => {
      reads += 1;
      return new Date(now);
    },
  };
  return {
    clock,
    set: (ms: number) => (now = ms),
    get reads() {
      return reads;
    },
  };
}

/** Refuses any target on refused.example, as the local rules would. */
const followGuard: UrlGuard = {
  check: (url) =>
    Promise.resolve(
      url.hostname === 'refused.example' ? { blocked: true, reason: 'listed' } : { blocked: false },
    ),
};

interface Setup {
  core: Core;
  store: CountingStore;
  time: ReturnType<typeof movableClock>;
  add(link: Partial<NewLink>): Promise<number>;
  resolve(alias: string, visit?: boolean): Promise<string | number>;
}

async function setUp(options: { caches?: boolean } = {}): Promise<Setup> {
  const store = countingStore(createMemoryStore());
  const provisioner = new Provisioner(store, systemClock);
  await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
  await provisioner.saveOrganization({ id: 'sleepy', domain: 'sleepy.link', active: false });
  const time = movableClock(T0);
  const served = options.caches
    ? withCaches(store, { linkCacheSize: 100, identityTtlSeconds: 10 })
    : store;
  const core = createCore({ store: served, clock: time.clock, followGuard });
  return {
    core,
    store,
    time,
    add: async (link) => {
      const stored = await store.links.insert(newLink(link));
      if (stored === 'alias_taken') throw new Error('alias taken');
      return stored.id;
    },
    // The outcome as one value: the alias when followed, else the failure's code.
    resolve: (alias, visit) =>
      core
        .createCaller()
        .links.resolve({
          domain: alias.startsWith('sleepy') ? 'sleepy.link' : 'acme.link',
          alias,
          ...(visit !== undefined && { visit }),
        })
        .then(
          (link) => link.alias,
          (error: { code?: number }) => error.code ?? -1,
        ),
  };
}

describe('links.resolve: expiry by date (code 30)', () => {
  it('follows until expiresAt by the core clock, then refuses with 30, visit or not', async () => {
    const s = await setUp();
    await s.add({ alias: 'dated', expiresAt: new Date(T0 + 60_000) });
    expect(await s.resolve('dated', true)).toBe('dated');
    s.time.set(T0 + 59_999);
    expect(await s.resolve('dated', true)).toBe('dated');
    s.time.set(T0 + 60_000);
    expect(await s.resolve('dated', true)).toBe(30);
    expect(await s.resolve('dated')).toBe(30);
    const error = await failureOf(
      s.core.createCaller().links.resolve({ domain: 'acme.link', alias: 'dated' }),
    );
    expect([error.reason, error.messages]).toEqual([
      'LINK_EXPIRED',
      ['This short link has expired.'],
    ]);
  });

  it('answers the expiry and the limit in the link it resolves', async () => {
    const s = await setUp();
    await s.add({ alias: 'both', expiresAt: new Date(T0 + 60_000), maxVisits: 7 });
    const link = await s.core.createCaller().links.resolve({ domain: 'acme.link', alias: 'both' });
    expect(link).toMatchObject({ expires_at: '2027-03-01T12:01:00.000Z', max_visits: 7 });
  });
});

describe('links.resolve: the order of refusals', () => {
  it('28 before 30: disabled, organization inactive or target refused, though also expired', async () => {
    const s = await setUp();
    const past = new Date(T0 - 1);
    await s.add({
      alias: 'off',
      expiresAt: past,
      maxVisits: 1,
    });
    await s.store.links.setDisabled(
      1,
      { reason: 'test', at: new Date(T0), by: 'admin' },
      { at: new Date(T0), by: 'admin', refuseHeld: false },
    );
    await s.add({
      alias: 'sleepy-one',
      domain: 'sleepy.link',
      organizationId: 'sleepy',
      expiresAt: past,
    });
    await s.add({ alias: 'refused', url: 'https://refused.example/', expiresAt: past });
    s.store.tally.reset();
    for (const alias of ['off', 'sleepy-one', 'refused']) {
      expect([alias, await s.resolve(alias, true)]).toEqual([alias, 28]);
    }
    expect(s.store.tally.of('links.takeVisit')).toBe(0);
  });

  it('a link refused with 28 takes none of its visits', async () => {
    const s = await setUp();
    await s.add({ alias: 'refused', url: 'https://refused.example/', maxVisits: 1 });
    expect(await s.resolve('refused', true)).toBe(28);
    expect(s.store.tally.of('links.takeVisit')).toBe(0);
    expect((await s.store.links.findById(1))?.visits ?? 0).toBe(0);
  });

  it('expiry by date before visits: an expired link with visits left takes none', async () => {
    const s = await setUp();
    await s.add({ alias: 'late', expiresAt: new Date(T0), maxVisits: 5 });
    s.store.tally.reset();
    expect(await s.resolve('late', true)).toBe(30);
    expect(s.store.tally.of('links.takeVisit')).toBe(0);
  });
});

describe('links.resolve: max_visits', () => {
  it('redirects max_visits visits, then refuses with 30', async () => {
    const s = await setUp();
    await s.add({ alias: 'three', maxVisits: 3 });
    const outcomes = [];
    for (let i = 0; i < 5; i += 1) outcomes.push(await s.resolve('three', true));
    expect(outcomes).toEqual(['three', 'three', 'three', 30, 30]);
    expect((await s.store.links.findById(1))?.visits).toBe(3);
  });

  it('counts nothing for a resolve that is no visit (HEAD, gRPC): it only checks', async () => {
    const s = await setUp();
    await s.add({ alias: 'two', maxVisits: 2 });
    s.store.tally.reset();
    for (let i = 0; i < 4; i += 1) {
      expect(await s.resolve('two')).toBe('two');
      expect(await s.resolve('two', false)).toBe('two');
    }
    expect(s.store.tally.of('links.takeVisit')).toBe(0);
    expect(await s.resolve('two', true)).toBe('two');
    expect(await s.resolve('two', true)).toBe('two');
    expect(await s.resolve('two', true)).toBe(30);
    // Out of visits: a resolve that is no visit says so too.
    expect(await s.resolve('two')).toBe(30);
  });

  it('refuses a link read as out of visits without asking the store for a visit', async () => {
    const s = await setUp();
    await s.add({ alias: 'one', maxVisits: 1 });
    expect(await s.resolve('one', true)).toBe('one');
    s.store.tally.reset();
    expect(await s.resolve('one', true)).toBe(30);
    expect(s.store.tally.of('links.takeVisit')).toBe(0);
  });

  it('asks the store when a cached link still shows visits left: the store decides', async () => {
    const s = await setUp({ caches: true });
    await s.add({ alias: 'once', maxVisits: 1 });
    expect(await s.resolve('once')).toBe('once'); // cached, with no visit
    expect(await s.resolve('once', true)).toBe('once');
    s.store.tally.reset();
    expect(await s.resolve('once', true)).toBe(30);
    expect(s.store.tally.calls).toEqual(new Map([['links.takeVisit', 1]]));
  });

  it('answers NOT_FOUND when the store no longer has the link it counts', async () => {
    const s = await setUp();
    await s.add({ alias: 'vanishing', maxVisits: 5 });
    s.store.links.takeVisit = () => Promise.resolve(null);
    expect(await s.resolve('vanishing', true)).toBe(24);
  });
});

describe('links.resolve: a link without limits pays nothing for them', () => {
  it('reads no clock and makes no store call beyond its lookup', async () => {
    const s = await setUp();
    await s.add({ alias: 'plain' });
    s.store.tally.reset();
    const reads = s.time.reads;
    expect(await s.resolve('plain', true)).toBe('plain');
    expect(s.time.reads).toBe(reads);
    expect(s.store.tally.of('links.takeVisit')).toBe(0);
    expect(s.store.tally.calls).toEqual(
      new Map([
        ['links.findByAlias', 1],
        ['identities.findOrganizationById', 1],
      ]),
    );
  });

  it('a link with max_visits alone reads no clock either', async () => {
    const s = await setUp();
    await s.add({ alias: 'counted', maxVisits: 9 });
    const reads = s.time.reads;
    expect(await s.resolve('counted', true)).toBe('counted');
    expect(s.time.reads).toBe(reads);
  });
});
