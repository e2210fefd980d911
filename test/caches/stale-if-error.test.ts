import {
  BackendUnavailableError,
  createCore,
  createMemoryStore,
  ErrorCode,
  Provisioner,
  systemClock,
  withCaches,
  type Store,
} from '../../core';
import { withDeadline } from '../../core/adapters/mongodb/operation-deadline';
import { loadConfig } from '../../core/runtime';
import { newLink } from '../storage/fixtures';
import { failureOf } from '../support/failures';

/** CHANGE_PROPAGATION_SECONDS: how long a link and an organization are fresh. */
const FRESH_MS = 5_000;
const STALE_IF_ERROR_SECONDS = 60;
/** The bound the MongoDB store puts on each call (MONGODB_TIMEOUT_MS), small for the test. */
const DEADLINE_MS = 100;
const URL_OF_LINK = newLink().url;

type Mode = 'up' | 'failing' | 'broken' | 'hanging';

/**
 * A memory store whose reads, once the test says so, reject with BackendUnavailableError (a
 * primary gone), reject with another error (a bug), or never settle (a primary that took the
 * request and went quiet); each call bounded as the MongoDB store bounds it.
 */
function outageStore(): { store: Store; mode: { now: Mode }; reads: () => number } {
  const inner = createMemoryStore();
  const mode = { now: 'up' as Mode };
  let reads = 0;
  const outage = <T extends object>(port: T): T =>
    new Proxy(port, {
      get(target, property) {
        const value: unknown = Reflect.get(target, property, target);
        if (typeof value !== 'function') return value;
        return (...args: unknown[]): unknown => {
          reads += 1;
          if (mode.now === 'failing') {
            return Promise.reject(new BackendUnavailableError('MongoDB unavailable'));
          }
          if (mode.now === 'broken') return Promise.reject(new TypeError('a bug'));
          if (mode.now === 'hanging') return new Promise(() => undefined);
          return Reflect.apply(value, target, args) as unknown;
        };
      },
    });
  const store: Store = {
    ...inner,
    links: withDeadline(outage(inner.links), DEADLINE_MS, 'links'),
    identities: withDeadline(outage(inner.identities), DEADLINE_MS, 'identities'),
  };
  return { store, mode, reads: () => reads };
}

async function setUp(staleIfErrorSeconds = STALE_IF_ERROR_SECONDS) {
  let now = 1_000_000;
  const backend = outageStore();
  const store = withCaches(backend.store, {
    linkCacheSize: 100,
    identityTtlSeconds: 10,
    propagationSeconds: FRESH_MS / 1000,
    staleIfErrorSeconds,
    now: () => now,
  });
  const provisioner = new Provisioner(backend.store, systemClock);
  await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
  await backend.store.links.insert(newLink({ alias: 'promo' }));
  const core = createCore({ store });
  const follow = () => core.createCaller().links.resolve({ domain: 'acme.link', alias: 'promo' });
  expect((await follow()).url).toBe(URL_OF_LINK); // now cached
  return { store, backend, follow, advance: (ms: number) => (now += ms) };
}

describe('a cached link and organization served past their time while the store is away', () => {
  it('follows a link whose freshness ran out while the store answers BackendUnavailableError', async () => {
    const t = await setUp();
    t.backend.mode.now = 'failing';
    t.advance(FRESH_MS + 1);
    expect((await t.follow()).url).toBe(URL_OF_LINK);
    t.advance(30_000);
    expect((await t.follow()).url).toBe(URL_OF_LINK);
  });

  it('asks the store again only once per freshness period during the outage', async () => {
    const t = await setUp();
    t.backend.mode.now = 'failing';
    t.advance(FRESH_MS + 1);
    await t.follow();
    const reads = t.backend.reads();
    for (let i = 0; i < 10; i += 1) await t.follow();
    expect(t.backend.reads()).toBe(reads);
    t.advance(FRESH_MS + 1);
    await t.follow();
    expect(t.backend.reads()).toBeGreaterThan(reads);
  });

  it('answers 23 once the link is older than its freshness plus STALE_IF_ERROR_SECONDS', async () => {
    const t = await setUp();
    t.backend.mode.now = 'failing';
    t.advance(FRESH_MS + STALE_IF_ERROR_SECONDS * 1000 + 1);
    expect((await failureOf(t.follow())).code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
  });

  it('serves nothing stale with STALE_IF_ERROR_SECONDS=0', async () => {
    const t = await setUp(0);
    t.backend.mode.now = 'failing';
    t.advance(FRESH_MS + 1);
    expect((await failureOf(t.follow())).code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
  });

  it('serves nothing stale for an error that is no outage (a bug answers as a bug)', async () => {
    const t = await setUp();
    t.backend.mode.now = 'broken';
    t.advance(FRESH_MS + 1);
    expect((await failureOf(t.follow())).code).toBe(ErrorCode.INTERNAL);
  });

  it('never serves a link its change stream dropped', async () => {
    const t = await setUp();
    (t.store.links as unknown as { invalidate(d: string, a: string): void }).invalidate(
      'acme.link',
      'promo',
    );
    t.backend.mode.now = 'failing';
    expect((await failureOf(t.follow())).code).toBe(ErrorCode.BACKEND_UNAVAILABLE);
  });

  it('does not hang on a store that never answers: stale at the store call bound', async () => {
    const t = await setUp();
    t.backend.mode.now = 'hanging';
    t.advance(FRESH_MS + 1);
    const started = Date.now();
    expect((await t.follow()).url).toBe(URL_OF_LINK);
    // Far below a hang (a read that never settles), with room for a busy machine's scheduling.
    expect(Date.now() - started).toBeLessThan(DEADLINE_MS * 2 * 3 + 4000);
  });

  it('is 60 s unless STALE_IF_ERROR_SECONDS says otherwise', () => {
    expect(loadConfig({}).STALE_IF_ERROR_SECONDS).toBe(60);
    expect(loadConfig({ STALE_IF_ERROR_SECONDS: '0' }).STALE_IF_ERROR_SECONDS).toBe(0);
  });
});
