import { createMemoryStore, silentLogger, withCaches, type CachedStore } from '../../core';
import { watchIdentityChanges } from '../../core/adapters/mongodb/identity-change-stream';
import { watchLinkChanges } from '../../core/adapters/mongodb/link-change-stream';
import { createRedisClient, type RedisClient } from '../../core/adapters/redis/redis-connection';
import {
  publishingInvalidations,
  subscribedInvalidations,
} from '../../core/adapters/redis/redis-invalidations';
import { parseRedisTopology } from '../../core/adapters/redis/redis-topology';
import { ConfigError, loadConfig } from '../../core/runtime';
import { invalidationsFromConfig } from '../../core/runtime/invalidations-from-config';
import { countingStore } from '../support/counting-store';
import { RedisProcess, SHARED_REDIS_URL, uniqueKeyPrefix } from '../support/redis-process';
import { insertNew, newLink, organization } from '../storage/fixtures';
import { fakeWatchable, waitFor, type FakeStream } from '../mongodb/fake-change-streams';

jest.setTimeout(30_000);

/**
 * MONGODB_INVALIDATION=publish and =redis on a real Redis: a publisher follows the (fake, driver
 * level) change streams and republishes what they report; a subscriber follows none and drops
 * what the publisher tells of, trusting its caches longer only while a publisher reports an
 * advancing stream. Both processes read one store (a memory store, counted per process).
 */

const HEARTBEAT_MS = 50;

const tokenAt = (epochMs: number) => ({
  _data: `82${Math.floor(epochMs / 1000)
    .toString(16)
    .padStart(8, '0')}000000012B0229296E04`,
});

async function readyClient(url: string): Promise<RedisClient> {
  const client = createRedisClient(parseRedisTopology(url, undefined), {
    maxReconnectDelayMs: 100,
  });
  client.on('error', () => undefined);
  await waitFor(() => client.status === 'ready', 5000);
  return client;
}

interface Fleet {
  publisher: CachedStore;
  subscriber: CachedStore;
  linkStream: FakeStream;
  streamsOpened: () => number;
  subscriberReads: () => number;
  later(seconds: number): void;
  close(): Promise<void>;
}

async function fleetOn(url: string): Promise<Fleet> {
  const keyPrefix = uniqueKeyPrefix('invalidations');
  const data = createMemoryStore();
  await insertNew(data.links, newLink({ alias: 'promo' }));
  await data.identities.saveOrganization(organization());
  const links = fakeWatchable();
  const identities = fakeWatchable();
  const mongo = (backend: ReturnType<typeof countingStore>) => {
    backend.watchLinkChanges = (listener) =>
      watchLinkChanges(links.collection, listener, { operationTime: links.operationTime });
    backend.watchIdentityChanges = (listener) =>
      watchIdentityChanges(identities.db, listener, { operationTime: identities.operationTime });
    return backend;
  };
  const publisherBackend = mongo(countingStore(data));
  const subscriberBackend = mongo(countingStore(data));
  let clock = 0;
  const caches = {
    linkCacheSize: 10,
    identityTtlSeconds: 10,
    propagationSeconds: 5,
    now: () => clock,
  };
  const options = { keyPrefix, logger: silentLogger, heartbeatMs: HEARTBEAT_MS };
  const publisher = withCaches(
    publishingInvalidations(publisherBackend, await readyClient(url), options),
    caches,
  );
  const subscriber = withCaches(
    subscribedInvalidations(subscriberBackend, await readyClient(url), options),
    caches,
  );
  await links.openedCount(1);
  return {
    publisher,
    subscriber,
    linkStream: links.latest(),
    streamsOpened: () => links.opened.length + identities.opened.length,
    subscriberReads: () => subscriberBackend.tally.of('links.findByAlias'),
    later: (seconds) => {
      clock += seconds * 1000;
    },
    close: async () => {
      await publisher.close().catch(() => undefined);
      await subscriber.close().catch(() => undefined);
    },
  };
}

const linkWatchOf = (store: CachedStore) =>
  store.changeWatches.find(({ stream }) => stream === 'link')!.watch;
const known = (store: CachedStore) => store.links.findKnownByAlias!('acme.link', 'promo');

describe('invalidations republished through Redis', () => {
  let fleet: Fleet;
  afterEach(() => fleet.close());

  it('a subscriber follows no stream and drops a link the publisher hears changed', async () => {
    fleet = await fleetOn(SHARED_REDIS_URL);
    // The publisher's two streams, none of the subscriber's.
    await waitFor(() => fleet.streamsOpened() === 2);
    await fleet.subscriber.links.findByAlias('acme.link', 'promo');
    expect(known(fleet.subscriber)).toBeDefined();
    fleet.linkStream.emit('change', {
      _id: tokenAt(Date.now()),
      operationType: 'update',
      documentKey: { _id: 1 },
      fullDocument: { domain: 'acme.link', alias: 'promo' },
    });
    await waitFor(() => known(fleet.subscriber) === undefined);
    expect(fleet.streamsOpened()).toBe(2);
  });

  it('trusts longer while a publisher reports its stream advancing, 5 s once it stops', async () => {
    fleet = await fleetOn(SHARED_REDIS_URL);
    const watch = linkWatchOf(fleet.subscriber);
    expect(watch.status?.().state).toBe('failed');
    const ticking = setInterval(
      () => fleet.linkStream.emit('resumeTokenChanged', tokenAt(Date.now())),
      20,
    );
    try {
      await waitFor(() => watch.status?.().positionAt !== undefined);
      expect(watch.status?.().state).toBe('open');
      await fleet.subscriber.links.findByAlias('acme.link', 'promo');
      fleet.later(30);
      expect(known(fleet.subscriber)).toBeDefined();
    } finally {
      clearInterval(ticking);
    }
    // The publisher stops: no report for three heartbeats, and the 5 s bound is back.
    await fleet.publisher.close();
    await waitFor(() => watch.status?.().state === 'failed');
    expect(known(fleet.subscriber)).toBeUndefined();
    const before = fleet.subscriberReads();
    await fleet.subscriber.links.findByAlias('acme.link', 'promo');
    expect(fleet.subscriberReads()).toBe(before + 1);
  });

  it('a subscription that comes back drops everything, and is not trusted while down', async () => {
    const redis = await RedisProcess.start();
    try {
      fleet = await fleetOn(redis.url);
      const watch = linkWatchOf(fleet.subscriber);
      await waitFor(() => watch.status?.().state === 'open');
      await fleet.subscriber.links.findByAlias('acme.link', 'promo');
      await fleet.subscriber.identities.findOrganizationById('acme');
      await redis.stop();
      await waitFor(() => watch.status?.().state === 'failed');
      // Still held on the short bound meanwhile.
      expect(known(fleet.subscriber)).toBeDefined();
      await redis.start();
      // Resubscribed: whatever was published meanwhile is lost to it, so everything goes.
      await waitFor(() => known(fleet.subscriber) === undefined, 10_000);
      await waitFor(() => watch.status?.().state === 'open', 10_000);
    } finally {
      await fleet.close();
      await redis.stop();
    }
  });
});

describe('MONGODB_INVALIDATION', () => {
  it('publish and redis need MONGODB_URI and REDIS_URL', () => {
    for (const role of ['publish', 'redis']) {
      expect(() => loadConfig({ MONGODB_INVALIDATION: role, DATA_DIR: ':memory:' })).toThrow(
        ConfigError,
      );
      expect(() =>
        loadConfig({ MONGODB_INVALIDATION: role, MONGODB_URI: 'mongodb://db:27017/shortlink' }),
      ).toThrow(/MONGODB_INVALIDATION.*REDIS_URL/);
    }
    expect(
      loadConfig({
        MONGODB_INVALIDATION: 'redis',
        MONGODB_URI: 'mongodb://db:27017/shortlink',
        REDIS_URL: 'redis://127.0.0.1:6379',
      }).MONGODB_INVALIDATION,
    ).toBe('redis');
    expect(() => loadConfig({ MONGODB_INVALIDATION: 'sometimes' })).toThrow(ConfigError);
  });

  it('redis: the runtime’s store opens no change stream of the backend; stream: the backend as it is', async () => {
    const backend = createMemoryStore();
    let streams = 0;
    backend.watchLinkChanges = () => {
      streams += 1;
      return { close: () => Promise.resolve() };
    };
    const env = { MONGODB_URI: 'mongodb://db:27017/shortlink', REDIS_URL: SHARED_REDIS_URL };
    expect(invalidationsFromConfig(backend, loadConfig(env), silentLogger)).toBe(backend);
    const subscribed = invalidationsFromConfig(
      backend,
      loadConfig({ ...env, MONGODB_INVALIDATION: 'redis' }),
      silentLogger,
    );
    const watch = subscribed.watchLinkChanges!(() => undefined);
    expect(streams).toBe(0);
    expect(watch.status?.().state).toBe('failed');
    await watch.close();
    await subscribed.close();
  });
});
