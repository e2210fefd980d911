import {
  BackendUnavailableError,
  createCore,
  createMemoryStore,
  DEFAULT_CHANGE_PROPAGATION_SECONDS,
  DEFAULT_IDENTITY_CACHE_SIZE,
  ErrorCode,
  hashSecret,
  Provisioner,
  systemClock,
  withCaches,
  type CachedStore,
  type Core,
} from '../../core';
import { CachedIdentityStore } from '../../core/caches/cached-identity-store';
import { loadConfig } from '../../core/runtime';
import { cachedStoreFromConfig } from '../../core/runtime/caches-from-config';
import { cacheKey, LookupCache } from '../../core/caches/lookup-cache';
import { newLink } from '../storage/fixtures';
import { failureOf } from '../support/failures';
import { countingStore, type CountingStore } from '../support/counting-store';

const TTL_SECONDS = 10;
/** The operator's change (the admin CLI), and the disabling it makes. */
const ADMIN = { at: new Date('2026-06-07T08:09:10.111Z'), by: 'admin', refuseHeld: false } as const;
const adminDisabling = () => ({ reason: 'r', at: ADMIN.at, by: ADMIN.by });

/**
 * A core on a caching store over a call-counting memory store, with a clock the test moves.
 * `other` provisions straight on the backend, as another process (or the admin CLI) would:
 * this process's caches hear nothing of it.
 */
async function setUp(
  options: {
    watchable?: boolean;
    ttlSeconds?: number;
    links?: number;
    propagationSeconds?: number;
  } = {},
) {
  let now = 1_000_000;
  const backend: CountingStore = countingStore(createMemoryStore(), options);
  const store: CachedStore = withCaches(backend, {
    linkCacheSize: options.links ?? 1000,
    identityTtlSeconds: options.ttlSeconds ?? TTL_SECONDS,
    ...(options.propagationSeconds !== undefined && {
      propagationSeconds: options.propagationSeconds,
    }),
    now: () => now,
  });
  const here = new Provisioner(store, systemClock);
  const other = new Provisioner(backend, systemClock);
  const { secretKey } = await here.saveOrganization({ id: 'acme', domain: 'acme.link' });
  await here.saveGroup({ organizationId: 'acme', apiId: '1' });
  await here.saveUser({ id: 'alice', organizations: ['acme'] });
  const { token } = await here.issueToken('alice');
  const core: Core = createCore({ store });
  backend.tally.reset();
  const caller = (bearer = token!) =>
    core.createCaller({ authorization: `Bearer ${bearer}`, clientAddress: '203.0.113.9' });
  const body = (extra: Record<string, unknown> = {}) =>
    ({
      organization_key: secretKey!,
      url_group_id: '1',
      url: 'https://example.com/a',
      ...extra,
    }) as never;
  return {
    backend,
    store,
    core,
    here,
    other,
    caller,
    body,
    token: token!,
    advance: (ms: number) => (now += ms),
  };
}

/**
 * Calls through the store's ports (the caches' effect), not network round trips: what reaches
 * MongoDB and Redis per operation (the rate-limit window, id blocks, link domains...) is counted
 * at the driver level in test/mongodb/round-trips.test.ts.
 */
describe('store port calls per create and per follow', () => {
  it('a cold create makes 5, a warm one 1 (the insert, which also gives the id)', async () => {
    const t = await setUp();
    await t.caller().links.create(t.body());
    expect(t.backend.tally.total()).toBe(5);
    t.backend.tally.reset();
    await t.caller().links.create(t.body({ url: 'https://example.com/b' }));
    expect(t.backend.tally.total()).toBe(1);
    expect(t.backend.tally.of('links.insert')).toBe(1);
  });

  it('without the caches every create makes 5', async () => {
    const t = await setUp({ ttlSeconds: 0, links: 0 });
    await t.caller().links.create(t.body());
    await t.caller().links.create(t.body({ url: 'https://example.com/b' }));
    expect(t.backend.tally.total()).toBe(10);
  });

  it('after the TTL the identity lookups are made again', async () => {
    const t = await setUp();
    await t.caller().links.create(t.body());
    t.advance(TTL_SECONDS * 1000 + 1);
    t.backend.tally.reset();
    await t.caller().links.create(t.body({ url: 'https://example.com/b' }));
    expect(t.backend.tally.total()).toBe(5);
  });

  it('past CHANGE_PROPAGATION_SECONDS, within the TTL, a create looks its token and organization up again, not its membership or group', async () => {
    const t = await setUp();
    await t.caller().links.create(t.body());
    t.advance(DEFAULT_CHANGE_PROPAGATION_SECONDS * 1000 + 1);
    t.backend.tally.reset();
    await t.caller().links.create(t.body({ url: 'https://example.com/b' }));
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
    expect(t.backend.tally.of('identities.findOrganizationByKeyHash')).toBe(1);
    expect(t.backend.tally.total()).toBe(3);
  });

  it('follows a link with one lookup the first time and none after', async () => {
    const t = await setUp();
    const other = await setUp();
    // Created through another process's store: this one has never seen it.
    await t.backend.links.insert(newLink({ alias: 'promo' }));
    t.backend.tally.reset();
    const resolver = t.core.createCaller();
    const first = await resolver.links.resolve({ domain: 'acme.link', alias: 'promo' });
    expect(t.backend.tally.of('links.findByAlias')).toBe(1);
    const again = await resolver.links.resolve({ domain: 'ACME.link', alias: 'promo' });
    expect(again).toEqual(first);
    expect(t.backend.tally.of('links.findByAlias')).toBe(1);
    expect(other.backend.tally.total()).toBe(0);
  });

  it('follows a link created in this process without any lookup', async () => {
    const t = await setUp();
    const created = await t.caller().links.create(t.body({ alias: 'mine' }));
    t.backend.tally.reset();
    const found = await t.core.createCaller().links.resolve({ domain: 'acme.link', alias: 'mine' });
    expect(found).toMatchObject({ ...created, state: 'active' });
    expect(t.backend.tally.total()).toBe(0);
  });

  it('never keeps "not found": a link created elsewhere is found at once', async () => {
    const t = await setUp();
    const resolver = t.core.createCaller();
    const missing = await failureOf(resolver.links.resolve({ domain: 'acme.link', alias: 'late' }));
    expect(missing.reason).toBe('NOT_FOUND');
    await t.backend.links.insert({
      domain: 'acme.link',
      alias: 'late',
      url: 'https://example.com/late',
      redirectType: 302,
      scheme: 'https',
      organizationId: 'acme',
      groupApiId: '1',
      userId: 'alice',
      createdAt: new Date(),
    });
    expect((await resolver.links.resolve({ domain: 'acme.link', alias: 'late' })).url).toBe(
      'https://example.com/late',
    );
  });
});

describe('identity changes and the cache', () => {
  it.each([
    {
      change: 'a deactivation made elsewhere',
      code: ErrorCode.ORGANIZATION_INACTIVE,
      // Organizations are trusted at most CHANGE_PROPAGATION_SECONDS, when shorter than the TTL.
      bound: DEFAULT_CHANGE_PROPAGATION_SECONDS,
      make: (t: Awaited<ReturnType<typeof setUp>>) => t.other.setOrganizationActive('acme', false),
    },
    {
      change: 'a token revoked elsewhere (the admin CLI)',
      code: ErrorCode.TOKEN_UNKNOWN,
      // Tokens too: a revocation meets the bound every other change meets, not the longer TTL.
      bound: DEFAULT_CHANGE_PROPAGATION_SECONDS,
      make: (t: Awaited<ReturnType<typeof setUp>>) => t.other.revokeToken(t.token),
    },
  ])('$change answers code $code within $bound s, not before', async ({ code, bound, make }) => {
    const t = await setUp();
    await t.caller().links.create(t.body());
    await make(t);
    // Still cached: the documented bound.
    t.advance(bound * 1000 - 1);
    await expect(
      t.caller().links.create(t.body({ url: 'https://example.com/b' })),
    ).resolves.toBeDefined();
    t.advance(2);
    const refused = await failureOf(
      t.caller().links.create(t.body({ url: 'https://example.com/c' })),
    );
    expect(refused.code).toBe(code);
  });

  it('a token revoked elsewhere answers code 11 within a CHANGE_PROPAGATION_SECONDS set shorter', async () => {
    const t = await setUp({ propagationSeconds: 2 });
    await t.caller().links.create(t.body());
    await t.other.revokeToken(t.token);
    t.advance(2000 - 1);
    await expect(
      t.caller().links.create(t.body({ url: 'https://example.com/b' })),
    ).resolves.toBeDefined();
    t.advance(2);
    const refused = await failureOf(
      t.caller().links.create(t.body({ url: 'https://example.com/c' })),
    );
    expect(refused.reason).toBe('TOKEN_UNKNOWN');
  });

  it('a deactivation made through this process shows code 13 at once', async () => {
    const t = await setUp();
    await t.caller().links.create(t.body());
    await t.here.setOrganizationActive('acme', false);
    const refused = await failureOf(t.caller().links.create(t.body({ url: 'https://x.example/' })));
    expect(refused.reason).toBe('ORGANIZATION_INACTIVE');
  });

  it('a write through this process that fails after it may have landed drops what it touches', async () => {
    // MongoDB: a write the server applied whose answer was lost (socket timeout) rejects with 23.
    const backend = createMemoryStore();
    const inner = backend.identities;
    const unanswered =
      <A extends unknown[]>(write: (...args: A) => Promise<unknown>) =>
      async (...args: A): Promise<never> => {
        await write.apply(inner, args);
        throw new BackendUnavailableError('no answer from the server');
      };
    const lossy = Object.assign(Object.create(inner) as typeof inner, {
      updateOrganization: unanswered(inner.updateOrganization),
      saveGroup: unanswered(inner.saveGroup),
      removeToken: unanswered(inner.removeToken),
    });
    const cached = new CachedIdentityStore(lossy, { ttlMs: TTL_SECONDS * 1000 });
    await inner.saveOrganization({
      id: 'acme',
      name: 'Acme',
      domain: 'acme.link',
      scheme: 'https',
      active: true,
      keyHash: 'a'.repeat(64),
    });
    await inner.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Default' });
    await inner.saveToken({ tokenHash: 't'.repeat(64), userId: 'alice', createdAt: new Date() });
    expect((await cached.findOrganizationById('acme'))?.active).toBe(true);
    expect((await cached.findGroup('acme', '1'))?.name).toBe('Default');
    expect(await cached.findUserIdByTokenHash('t'.repeat(64))).toBe('alice');

    await expect(cached.updateOrganization('acme', { active: false })).rejects.toThrow();
    await expect(
      cached.saveGroup({ organizationId: 'acme', apiId: '1', name: 'Renamed' }),
    ).rejects.toThrow();
    await expect(cached.removeToken('t'.repeat(64))).rejects.toThrow();

    expect((await cached.findOrganizationById('acme'))?.active).toBe(false);
    expect((await cached.findGroup('acme', '1'))?.name).toBe('Renamed');
    expect(await cached.findUserIdByTokenHash('t'.repeat(64))).toBeNull();
  });

  it('a deactivation reported by the backend (change stream) shows code 13 at once', async () => {
    const t = await setUp({ watchable: true });
    await t.caller().links.create(t.body());
    await t.other.setOrganizationActive('acme', false);
    t.backend.emitIdentityChange('organizations');
    const refused = await failureOf(t.caller().links.create(t.body({ url: 'https://x.example/' })));
    expect(refused.reason).toBe('ORGANIZATION_INACTIVE');
  });

  it('stops listening to the backend when the store closes', async () => {
    const t = await setUp({ watchable: true });
    await t.caller().links.create(t.body());
    await t.store.close();
    await t.other.setOrganizationActive('acme', false);
    t.backend.emitIdentityChange('organizations');
    // Nobody listens any more: the cached organization still answers.
    await expect(
      t.caller().links.create(t.body({ url: 'https://example.com/b' })),
    ).resolves.toBeDefined();
  });

  it('a token revoked through this process, alone or with all its user’s, answers 11 at once', async () => {
    const t = await setUp();
    const { token: second } = await t.here.issueToken('alice');
    await t.caller().links.create(t.body());
    await t.caller(second).links.create(t.body({ url: 'https://example.com/b' }));
    await t.here.revokeToken(t.token);
    expect((await failureOf(t.caller().links.create(t.body()))).reason).toBe('TOKEN_UNKNOWN');
    await expect(
      t.caller(second).links.create(t.body({ url: 'https://example.com/c' })),
    ).resolves.toBeDefined();
    await expect(t.here.revokeTokensOfUser('alice')).resolves.toBe(1);
    expect((await failureOf(t.caller(second).links.create(t.body()))).reason).toBe('TOKEN_UNKNOWN');
  });

  it('a token revoked elsewhere and reported by the backend (change stream) answers 11 at once', async () => {
    const t = await setUp({ watchable: true });
    await t.caller().links.create(t.body());
    await t.other.revokeTokensOfUser('alice');
    t.backend.emitIdentityChange('tokens');
    expect((await failureOf(t.caller().links.create(t.body()))).reason).toBe('TOKEN_UNKNOWN');
  });

  it("a user's tokens revoked through this process drop that user's tokens only", async () => {
    const t = await setUp();
    await t.here.saveUser({ id: 'bob', organizations: ['acme'] });
    const { token: bobToken } = await t.here.issueToken('bob');
    await t.caller().links.create(t.body());
    await t.caller(bobToken).links.create(t.body({ url: 'https://example.com/b' }));
    await t.here.revokeTokensOfUser('alice');
    t.backend.tally.reset();
    expect((await failureOf(t.caller().links.create(t.body()))).reason).toBe('TOKEN_UNKNOWN');
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
    await t.caller(bobToken).links.create(t.body({ url: 'https://example.com/c' }));
    // Bob's token is still cached: no lookup for it.
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
  });

  it('a token reported by the backend by its hash answers 11 at once; other tokens stay cached', async () => {
    const t = await setUp({ watchable: true });
    await t.here.saveUser({ id: 'bob', organizations: ['acme'] });
    const { token: bobToken } = await t.here.issueToken('bob');
    await t.caller().links.create(t.body());
    await t.caller(bobToken).links.create(t.body({ url: 'https://example.com/b' }));
    await t.other.revokeToken(t.token);
    t.backend.emitIdentityChange({ kind: 'token', tokenHash: hashSecret(t.token) });
    t.backend.tally.reset();
    expect((await failureOf(t.caller().links.create(t.body()))).reason).toBe('TOKEN_UNKNOWN');
    await t.caller(bobToken).links.create(t.body({ url: 'https://example.com/c' }));
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
  });

  it('a membership added elsewhere works at once (no negative caching)', async () => {
    const t = await setUp({ watchable: true });
    await t.caller().links.create(t.body());
    await t.other.saveUser({ id: 'bob' });
    const { token: bobToken } = await t.other.issueToken('bob');
    const notMember = await failureOf(t.caller(bobToken).links.create(t.body()));
    expect(notMember.reason).toBe('NOT_A_MEMBER');
    await t.other.addMember('bob', 'acme');
    await expect(t.caller(bobToken).links.create(t.body())).resolves.toBeDefined();
  });

  it('a fresh token works at once, even right after it was refused', async () => {
    const t = await setUp();
    const fresh = 'fresh-token-made-elsewhere-0123456789';
    const unknown = await failureOf(t.caller(fresh).links.create(t.body()));
    expect(unknown.reason).toBe('TOKEN_UNKNOWN');
    await t.other.issueToken('alice', { token: fresh });
    await expect(t.caller(fresh).links.create(t.body())).resolves.toBeDefined();
  });

  it('a new organization key (rotation) works at once and the old one stops here', async () => {
    const t = await setUp();
    await t.caller().links.create(t.body());
    const { secretKey } = await t.here.rotateOrganizationKey('acme');
    const old = await failureOf(t.caller().links.create(t.body()));
    expect(old.reason).toBe('ORGANIZATION_KEY_INVALID');
    await expect(
      t.caller().links.create(t.body({ organization_key: secretKey })),
    ).resolves.toBeDefined();
  });
});

describe('link state changes and the link cache', () => {
  const bound = DEFAULT_CHANGE_PROPAGATION_SECONDS * 1000;
  const follow = (t: Awaited<ReturnType<typeof setUp>>) =>
    t.core
      .createCaller()
      .links.resolve({ domain: 'acme.link', alias: 'kept' })
      .then(
        () => 'followed',
        (error: { reason: string }) => error.reason,
      );

  it('a disable made elsewhere stops following within the bound, not before', async () => {
    const t = await setUp();
    const link = await t.caller().links.create(t.body({ alias: 'kept' }));
    expect(await follow(t)).toBe('followed');
    await t.backend.links.setDisabled(link.id, adminDisabling(), ADMIN);
    t.advance(bound - 1);
    expect(await follow(t)).toBe('followed');
    t.advance(2);
    expect(await follow(t)).toBe('LINK_DISABLED');
  });

  it('a disable or enable made through this process is seen at once', async () => {
    const t = await setUp();
    const link = await t.caller().links.create(t.body({ alias: 'kept' }));
    expect(await follow(t)).toBe('followed');
    await t.store.links.setDisabled(link.id, adminDisabling(), ADMIN);
    expect(await follow(t)).toBe('LINK_DISABLED');
    await t.store.links.setDisabled(link.id, null, ADMIN);
    expect(await follow(t)).toBe('followed');
  });

  const followedUrl = async (t: Awaited<ReturnType<typeof setUp>>) =>
    (await t.core.createCaller().links.resolve({ domain: 'acme.link', alias: 'kept' })).url;

  it('an update made through this process is seen at once; a held one answers held', async () => {
    const t = await setUp();
    const link = await t.caller().links.create(t.body({ alias: 'kept' }));
    expect(await followedUrl(t)).toBe('https://example.com/a');
    await t.store.links.update(link.id, { url: 'https://example.com/b' }, ADMIN);
    expect(await followedUrl(t)).toBe('https://example.com/b');
    await t.store.links.setDisabled(link.id, adminDisabling(), ADMIN);
    const member = { at: new Date(), by: 'user:alice', refuseHeld: true } as const;
    await expect(
      t.store.links.update(link.id, { url: 'https://example.com/c' }, member),
    ).resolves.toBe('held');
    await expect(t.store.links.setDisabled(link.id, null, member)).resolves.toBe('held');
    expect(await follow(t)).toBe('LINK_DISABLED');
    await t.store.links.setDisabled(link.id, null, ADMIN);
    expect(await followedUrl(t)).toBe('https://example.com/b');
  });

  it('an update made elsewhere is seen within the bound; visits are never cached', async () => {
    const t = await setUp();
    const link = await t.caller().links.create(t.body({ alias: 'kept' }));
    expect(await followedUrl(t)).toBe('https://example.com/a');
    await t.backend.links.update(link.id, { url: 'https://example.com/b', maxVisits: 2 }, ADMIN);
    t.advance(bound - 1);
    expect(await followedUrl(t)).toBe('https://example.com/a');
    t.advance(2);
    expect(await followedUrl(t)).toBe('https://example.com/b');
    t.backend.tally.reset();
    const visits = [];
    for (let i = 0; i < 3; i += 1) visits.push(await t.store.links.takeVisit(link.id));
    expect(visits).toEqual(['counted', 'counted', 'exhausted']);
    expect(t.backend.tally.of('links.takeVisit')).toBe(3);
  });
});

describe('shared lookups', () => {
  it('concurrent misses for one token share one lookup', async () => {
    const t = await setUp();
    const hash = hashSecret(t.token);
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => t.store.identities.findUserIdByTokenHash(hash)),
    );
    expect(new Set(answers)).toEqual(new Set(['alice']));
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
  });

  it('concurrent creates make one lookup of each identity', async () => {
    const t = await setUp();
    await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        t.caller().links.create(t.body({ url: `https://example.com/${i}` })),
      ),
    );
    expect(t.backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
    expect(t.backend.tally.of('identities.findOrganizationByKeyHash')).toBe(1);
    expect(t.backend.tally.of('identities.isMember')).toBe(1);
    expect(t.backend.tally.of('identities.findGroup')).toBe(1);
  });

  it('does not keep the answer of a lookup that was in flight when its entry was invalidated', async () => {
    const cache = new LookupCache<string>({ max: 10 });
    const releases: Array<(value: string) => void> = [];
    const load = () => new Promise<string>((resolve) => releases.push(resolve));
    const early = cache.get('k', load);
    cache.delete('k');
    const late = cache.get('k', load);
    expect(releases).toHaveLength(2);
    releases[1]!('new');
    expect(await late).toBe('new');
    // The early lookup still answers its caller, but what it read may predate the change.
    releases[0]!('old');
    expect(await early).toBe('old');
    expect(await cache.get('k', load)).toBe('new');
    expect(releases).toHaveLength(2);
  });

  describe('an invalidation by value (deleteWhere) while lookups are in flight', () => {
    /** A cache whose loads wait until the test answers them, counted. */
    function held() {
      const cache = new LookupCache<{ id: string; version: number }>({ max: 10 });
      const answers: Array<(value: { id: string; version: number }) => void> = [];
      const load = () =>
        new Promise<{ id: string; version: number }>((resolve) => answers.push(resolve));
      return { cache, answers, load };
    }

    it('keeps, and shares, a lookup whose answer the invalidation does not pick', async () => {
      const { cache, answers, load } = held();
      const first = cache.get('k1', load);
      cache.deleteWhere((value) => value.id === 'other');
      const later = cache.get('k1', load);
      answers[0]!({ id: 'mine', version: 1 });
      expect(await first).toEqual({ id: 'mine', version: 1 });
      expect(await later).toEqual({ id: 'mine', version: 1 });
      // One lookup for the two callers, and its answer kept.
      expect(await cache.get('k1', load)).toEqual({ id: 'mine', version: 1 });
      expect(answers).toHaveLength(1);
    });

    it('does not keep an answer it picks; a caller after it asks again, one before it does not', async () => {
      const { cache, answers, load } = held();
      const starter = cache.get('k1', load);
      const before = cache.get('k1', load);
      cache.deleteWhere((value) => value.id === 'acme');
      const after = cache.get('k1', load);
      const afterToo = cache.get('k1', load);
      answers[0]!({ id: 'acme', version: 1 });
      // Came before the change was reported: the answer of their time.
      expect(await starter).toEqual({ id: 'acme', version: 1 });
      expect(await before).toEqual({ id: 'acme', version: 1 });
      // Came after it: one new lookup for both, whose answer is kept.
      await new Promise((resolve) => setImmediate(resolve));
      expect(answers).toHaveLength(2);
      answers[1]!({ id: 'acme', version: 2 });
      expect(await after).toEqual({ id: 'acme', version: 2 });
      expect(await afterToo).toEqual({ id: 'acme', version: 2 });
      expect(await cache.get('k1', load)).toEqual({ id: 'acme', version: 2 });
      expect(answers).toHaveLength(2);
    });
  });

  it('keeps apart entries whose parts hold a NUL (a group of another organization)', () => {
    expect(cacheKey('acme\u0000x', 'y')).not.toBe(cacheKey('acme', 'x\u0000y'));
    expect(cacheKey('a', '')).not.toBe(cacheKey('', 'a'));
  });

  it('never answers a group of another organization for a url_group_id holding a NUL', async () => {
    const { store, backend } = await setUp();
    await backend.identities.saveGroup({
      organizationId: 'acme\u0000x',
      apiId: 'y',
      name: 'Other',
    });
    await expect(store.identities.findGroup('acme\u0000x', 'y')).resolves.toMatchObject({
      name: 'Other',
    });
    await expect(store.identities.findGroup('acme', 'x\u0000y')).resolves.toBeNull();
  });

  it('bounds the identity cache to IDENTITY_CACHE_SIZE entries per kind', async () => {
    const config = loadConfig({ DATA_DIR: ':memory:', IDENTITY_CACHE_SIZE: '2' });
    expect(loadConfig({}).IDENTITY_CACHE_SIZE).toBe(DEFAULT_IDENTITY_CACHE_SIZE);
    expect(() => loadConfig({ IDENTITY_CACHE_SIZE: '0' })).toThrow(/IDENTITY_CACHE_SIZE: /);
    const backend = countingStore(createMemoryStore());
    const store = cachedStoreFromConfig(backend, config);
    const hashes = ['a', 'b', 'c'].map((c) => c.repeat(64));
    for (const tokenHash of hashes) {
      await backend.identities.saveToken({ tokenHash, userId: 'alice', createdAt: new Date() });
      await store.identities.findUserIdByTokenHash(tokenHash);
    }
    backend.tally.reset();
    // The two most recent are kept; the first was dropped for the third.
    await store.identities.findUserIdByTokenHash(hashes[2]!);
    await store.identities.findUserIdByTokenHash(hashes[1]!);
    expect(backend.tally.total()).toBe(0);
    await store.identities.findUserIdByTokenHash(hashes[0]!);
    expect(backend.tally.of('identities.findUserIdByTokenHash')).toBe(1);
  });

  it('bounds the link cache to LINK_CACHE_SIZE entries', async () => {
    const t = await setUp({ links: 2 });
    for (const alias of ['a1', 'a2', 'a3']) {
      await t.caller().links.create(t.body({ alias }));
    }
    t.backend.tally.reset();
    const resolver = t.core.createCaller();
    await resolver.links.resolve({ domain: 'acme.link', alias: 'a3' });
    await resolver.links.resolve({ domain: 'acme.link', alias: 'a2' });
    expect(t.backend.tally.of('links.findByAlias')).toBe(0);
    await resolver.links.resolve({ domain: 'acme.link', alias: 'a1' });
    expect(t.backend.tally.of('links.findByAlias')).toBe(1);
  });
});

describe('changes reported by the backend, by key', () => {
  const disabling = { reason: 'phishing', at: new Date(), by: 'admin' };

  it('a link disabled elsewhere answers 28 as soon as the backend reports that link, others stay cached', async () => {
    const t = await setUp({ watchable: true });
    const promo = await t.backend.links.insert(newLink({ alias: 'promo' }));
    await t.backend.links.insert(newLink({ alias: 'other' }));
    const resolver = t.core.createCaller();
    await resolver.links.resolve({ domain: 'acme.link', alias: 'promo' });
    await resolver.links.resolve({ domain: 'acme.link', alias: 'other' });
    expect(promo).not.toBe('alias_taken');
    await t.backend.links.setDisabled((promo as { id: number }).id, disabling, ADMIN);
    // Not reported yet: the cached link is still followed (within the propagation bound).
    await expect(
      resolver.links.resolve({ domain: 'acme.link', alias: 'promo' }),
    ).resolves.toBeDefined();
    t.backend.tally.reset();
    t.backend.emitLinkChange({ domain: 'acme.link', alias: 'promo' });
    expect(
      (await failureOf(resolver.links.resolve({ domain: 'acme.link', alias: 'promo' }))).reason,
    ).toBe('LINK_DISABLED');
    await resolver.links.resolve({ domain: 'acme.link', alias: 'other' });
    expect(t.backend.tally.of('links.findByAlias')).toBe(1);
  });

  it("a report of 'all' links (changes may have been missed) drops every cached link", async () => {
    const t = await setUp({ watchable: true });
    await t.backend.links.insert(newLink({ alias: 'a1' }));
    await t.backend.links.insert(newLink({ alias: 'a2' }));
    const resolver = t.core.createCaller();
    for (const alias of ['a1', 'a2']) await resolver.links.resolve({ domain: 'acme.link', alias });
    t.backend.tally.reset();
    t.backend.emitLinkChange('all');
    for (const alias of ['a1', 'a2']) await resolver.links.resolve({ domain: 'acme.link', alias });
    expect(t.backend.tally.of('links.findByAlias')).toBe(2);
  });

  it('stops listening to link changes when the store closes', async () => {
    const t = await setUp({ watchable: true });
    await t.backend.links.insert(newLink({ alias: 'kept' }));
    const resolver = t.core.createCaller();
    await resolver.links.resolve({ domain: 'acme.link', alias: 'kept' });
    await t.store.close();
    t.backend.tally.reset();
    t.backend.emitLinkChange({ domain: 'acme.link', alias: 'kept' });
    await resolver.links.resolve({ domain: 'acme.link', alias: 'kept' });
    expect(t.backend.tally.of('links.findByAlias')).toBe(0);
  });

  it('an organization reported by id drops that organization only', async () => {
    const t = await setUp({ watchable: true });
    const { secretKey: otherKey } = await t.here.saveOrganization({
      id: 'globex',
      domain: 'globex.link',
    });
    const acmeKeyHash = hashSecret((t.body() as { organization_key: string }).organization_key);
    const otherKeyHash = hashSecret(otherKey!);
    const lookUpBoth = async () => {
      for (const [id, keyHash] of [
        ['acme', acmeKeyHash],
        ['globex', otherKeyHash],
      ] as const) {
        await t.store.identities.findOrganizationById(id);
        await t.store.identities.findOrganizationByKeyHash(keyHash);
      }
    };
    await lookUpBoth();
    await t.other.setOrganizationActive('acme', false);
    t.backend.tally.reset();
    t.backend.emitIdentityChange({ kind: 'organization', id: 'acme', keyHash: acmeKeyHash });
    await lookUpBoth();
    expect(t.backend.tally.of('identities.findOrganizationById')).toBe(1);
    expect(t.backend.tally.of('identities.findOrganizationByKeyHash')).toBe(1);
    expect((await t.store.identities.findOrganizationById('acme'))?.active).toBe(false);
    const refused = await failureOf(t.caller().links.create(t.body()));
    expect(refused.reason).toBe('ORGANIZATION_INACTIVE');
  });

  it('a key rotated elsewhere, reported with only the new key hash, refuses the old key at once', async () => {
    const t = await setUp({ watchable: true });
    await t.caller().links.create(t.body());
    const { secretKey } = await t.other.rotateOrganizationKey('acme');
    t.backend.emitIdentityChange({
      kind: 'organization',
      id: 'acme',
      keyHash: hashSecret(secretKey),
    });
    expect((await failureOf(t.caller().links.create(t.body()))).reason).toBe(
      'ORGANIZATION_KEY_INVALID',
    );
    await expect(
      t.caller().links.create(t.body({ organization_key: secretKey })),
    ).resolves.toBeDefined();
  });
});
