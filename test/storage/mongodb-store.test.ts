import {
  createMongoRateLimiters,
  createMongoStore,
  DEFAULT_ID_BLOCK_SIZE,
  INDEXES,
  COLLECTIONS,
  type MongoStore,
} from '../../core/adapters/mongodb';
import {
  BackendUnavailableError,
  createCore,
  hashSecret,
  silentLogger,
  withCaches,
  type LinkRecord,
} from '../../core';
import { positionOf } from '../../core/ports/link-store';
import type { LinkDocument } from '../../core/adapters/mongodb/documents';
import { createRuntime, loadConfig } from '../../core/runtime';
import { createTestCore } from '../support/core-fixture';
import { insertNew, newLink } from './fixtures';

/** A link as the links collection holds it (its id as `_id`). */
function linkDocument(id: number) {
  return { _id: id, ...newLink({ alias: `l${id}` }) };
}
import { detectMongo, MongoTestServer } from './mongo-target';
import { describeStoreContract } from './store-contract';

jest.setTimeout(60_000);

const availability = detectMongo();

if (!availability.available) {
  // The one line saying the MongoDB run did not happen, and why. Written to stderr directly:
  // jest drops console output of a file whose tests are all skipped.
  process.stderr.write(`\nMongoDB storage suite SKIPPED: ${availability.reason}\n`);
  describe('storage contract: MongoDB store', () => {
    it.skip(`MongoDB run skipped: ${availability.reason}`, () => undefined);
  });
} else {
  let server: MongoTestServer;

  beforeAll(async () => {
    server = await MongoTestServer.start(availability);
  });

  afterAll(async () => {
    await server?.stop();
  });

  const open = (dbName: string): Promise<MongoStore> =>
    createMongoStore({ uri: server.uriFor(dbName) });

  describe(`storage contract: MongoDB store (${availability.source})`, () => {
    describeStoreContract(() => ({
      fresh: () => open(server.freshDatabase()),
      takenAliasUsesId: true,
      createdAtAsGiven: true,
    }));
  });

  describe(`MongoDB specifics (${availability.source})`, () => {
    it('creates every index at start-up (unique and TTL ones), and starting again is a no-op', async () => {
      const dbName = server.freshDatabase();
      const first = await open(dbName);
      await first.close();
      const second = await open(dbName);
      try {
        for (const index of Object.values(INDEXES)) {
          const listed = await second.db.collection(index.collection).listIndexes().toArray();
          const found = listed.find((candidate) => candidate.name === index.name);
          expect({ collection: index.collection, ...found }).toMatchObject({
            collection: index.collection,
            name: index.name,
            key: index.key,
            ...(index.unique ? { unique: true } : {}),
            ...('expireAfterSeconds' in index
              ? { expireAfterSeconds: index.expireAfterSeconds }
              : {}),
          });
        }
      } finally {
        await second.close();
      }
    });

    it('writes with majority write concern and retryable writes unless the URI says otherwise', async () => {
      const store = await open(server.freshDatabase());
      try {
        expect(store.client.options.retryWrites).toBe(true);
        if (!/[?&]w=/i.test(server.uri)) {
          expect(store.client.options.writeConcern?.w).toBe('majority');
        }
      } finally {
        await store.close();
      }
    });

    it('keeps everything across a restart (close, reopen on the same database)', async () => {
      const dbName = server.freshDatabase();
      const before = await open(dbName);
      const f = await createTestCore({ store: before });
      const created = await f.caller().links.create(f.body({ alias: 'kept' }) as never);
      const lastId = (await insertNew(before.links, newLink({ alias: 'direct' }))).id;
      expect(lastId).toBe(created.id + 1);
      await before.close();

      const after = await open(dbName);
      try {
        await expect(after.links.findByAlias('acme.link', 'kept')).resolves.toMatchObject({
          id: created.id,
          url: created.url,
        });
        // The stopped process's block ended at the counter: the new one starts past it.
        const counter = await after.db
          .collection<{ _id: string; seq: number }>(COLLECTIONS.counters)
          .findOne({ _id: 'link_id' });
        expect(counter?.seq).toBe(DEFAULT_ID_BLOCK_SIZE);
        const reopened = (await insertNew(after.links, newLink({ alias: 'reopened' }))).id;
        expect(reopened).toBe(DEFAULT_ID_BLOCK_SIZE + 1);
        expect(reopened).toBeGreaterThan(lastId);
        // A taken alias uses an id on MongoDB (taken from the counter before the insert).
        await expect(after.links.insert(newLink({ alias: 'kept' }))).resolves.toBe('alias_taken');
        const again = createCoreOn(after, f);
        await expect(again.links.create(f.body({ alias: 'kept' }) as never)).rejects.toMatchObject({
          reason: 'ALIAS_TAKEN',
        });
        const next = await again.links.create(f.body() as never);
        // reopened + 1 and + 2 went to the two inserts refused for the taken alias.
        expect(next.id).toBe(reopened + 3);
      } finally {
        await after.close();
      }
    });

    it('refuses to start when the id counter is behind the largest link id', async () => {
      const dbName = server.freshDatabase();
      const first = await open(dbName);
      await first.db.collection<LinkDocument>(COLLECTIONS.links).insertOne(linkDocument(50));
      await first.db
        .collection<{ _id: string; seq: number }>(COLLECTIONS.counters)
        .updateOne({ _id: 'link_id' }, { $set: { seq: 10 } }, { upsert: true });
      await first.close();
      await expect(open(dbName)).rejects.toThrow(/seq 10\) is behind the largest link id \(50\)/);
    });

    it('hands out unique ids to concurrent inserts from blocks of ID_BLOCK_SIZE', async () => {
      const store = await createMongoStore({
        uri: server.uriFor(server.freshDatabase()),
        idBlockSize: 10,
      });
      try {
        const ids = await Promise.all(
          Array.from(
            { length: 40 },
            async (_, i) => (await insertNew(store.links, newLink({ alias: `c${i}` }))).id,
          ),
        );
        expect([...ids].sort((a, b) => a - b)).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
        const counter = await store.db
          .collection<{ _id: string; seq: number }>(COLLECTIONS.counters)
          .findOne({ _id: 'link_id' });
        // Whole blocks: the first request's, one for the 30 that waited, and perhaps the block
        // fetched ahead once that one was spent.
        expect([40, 50]).toContain(counter?.seq);
      } finally {
        await store.close();
      }
    });

    it('invalidates cached identities through change streams where the server has them', async () => {
      const dbName = server.freshDatabase();
      const backend = await open(dbName);
      const other = await open(dbName);
      // A TTL far longer than the test: only a change stream can make the change visible.
      const cached = withCaches(backend, { linkCacheSize: 10, identityTtlSeconds: 600 });
      try {
        const f = await createTestCore({ store: other });
        const keyHash = hashSecret(f.organizationKey);
        expect((await cached.identities.findOrganizationByKeyHash(keyHash))?.active).toBe(true);
        // Let the change stream's cursor open before the change.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const organization = (await other.identities.findOrganizationByKeyHash(keyHash))!;
        await other.identities.saveOrganization({ ...organization, active: false });
        const hello = await backend.db.admin().command({ hello: 1 });
        const seen = async () =>
          (await cached.identities.findOrganizationByKeyHash(keyHash))?.active === false;
        if (hello.setName || hello.msg === 'isdbgrid') {
          const deadline = Date.now() + 15_000;
          while (!(await seen()) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          expect(await seen()).toBe(true);
        } else {
          // A standalone server has no change streams: the cache keeps its entry for the TTL.
          expect(await seen()).toBe(false);
        }
      } finally {
        await cached.close();
        await other.close();
      }
    });

    it('drops a link disabled by another process through the links change stream', async () => {
      const dbName = server.freshDatabase();
      const backend = await open(dbName);
      const other = await open(dbName);
      // A propagation bound far longer than the test: only a change stream can make it visible.
      const cached = withCaches(backend, {
        linkCacheSize: 10,
        identityTtlSeconds: 600,
        propagationSeconds: 600,
      });
      try {
        const link = await insertNew(other.links, newLink({ alias: 'watched' }));
        await insertNew(other.links, newLink({ alias: 'untouched' }));
        expect(await cached.links.findByAlias('acme.link', 'watched')).not.toHaveProperty(
          'disabled',
        );
        // Let the change stream's cursor open before the change.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        const acting = { at: new Date(), by: 'admin', refuseHeld: false } as const;
        const disabling = { reason: 'reported', at: acting.at, by: acting.by };
        await expect(other.links.setDisabled(link.id, disabling, acting)).resolves.toMatchObject({
          changed: true,
        });
        const hello = await backend.db.admin().command({ hello: 1 });
        const seen = async () =>
          (await cached.links.findByAlias('acme.link', 'watched'))?.disabled?.reason === 'reported';
        if (hello.setName || hello.msg === 'isdbgrid') {
          const deadline = Date.now() + 15_000;
          while (!(await seen()) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 100));
          }
          expect(await seen()).toBe(true);
        } else {
          // A standalone server has no change streams: the link stays cached for the bound.
          expect(await seen()).toBe(false);
        }
      } finally {
        await cached.close();
        await other.close();
      }
    });

    it('lists links newest first through the organization indexes, and governs them by id', async () => {
      const store = await open(server.freshDatabase());
      try {
        const inserted: LinkRecord[] = [];
        for (const [alias, groupApiId] of [
          ['g1', '1'],
          ['g2', '2'],
          ['g3', '1'],
        ] as const) {
          inserted.push(await insertNew(store.links, newLink({ alias, groupApiId })));
        }
        const ids = inserted.map((link) => link.id);
        const page = await store.links.list({ organizationId: 'acme', limit: 2 });
        expect(page.map((link) => link.id)).toEqual([ids[2], ids[1]]);
        const next = await store.links.list({
          organizationId: 'acme',
          before: positionOf(inserted[1]!),
          limit: 2,
        });
        expect(next.map((link) => link.id)).toEqual([ids[0]]);
        const group = await store.links.list({ organizationId: 'acme', groupApiId: '1', limit: 9 });
        expect(group.map((link) => link.id)).toEqual([ids[2], ids[0]]);
        // Newer links of another organization: reading acme's newest through `_id` alone would
        // step over them, so the planner picks the organization's index (its winning plan).
        for (let n = 0; n < 4; n += 1) {
          await insertNew(
            store.links,
            newLink({ alias: `x${n}`, domain: 'globex.link', organizationId: 'globex' }),
          );
        }
        const links = store.db.collection<LinkDocument>(COLLECTIONS.links);
        const winningPlan = async (filter: Record<string, unknown>) => {
          const explained = await links
            .find(filter)
            .sort({ createdAt: -1, _id: -1 })
            .limit(2)
            .explain();
          return JSON.stringify((explained.queryPlanner as Record<string, unknown>).winningPlan);
        };
        expect(await winningPlan({ organizationId: 'acme' })).toContain(
          INDEXES.linksOfOrganization.name,
        );
        expect(await winningPlan({ organizationId: 'acme', groupApiId: '1' })).toContain(
          INDEXES.linksOfGroup.name,
        );
        await expect(
          store.links.list({ organizationId: 'globex', limit: 9 }),
        ).resolves.toHaveLength(4);

        const acting = {
          at: new Date('2026-11-02T00:00:00.000Z'),
          by: 'user:bob',
          refuseHeld: true,
        } as const;
        const disabling = { reason: 'spam', at: acting.at, by: acting.by };
        const first = await store.links.setDisabled(ids[0]!, disabling, acting);
        expect(first).toMatchObject({ changed: true, link: { id: ids[0], disabled: disabling } });
        const again = await store.links.setDisabled(
          ids[0]!,
          { ...disabling, reason: 'other' },
          acting,
        );
        expect(again).toMatchObject({ changed: false, link: { disabled: { reason: 'spam' } } });
        await expect(store.links.findById(ids[0]!)).resolves.toMatchObject({ disabled: disabling });
        const enabled = await store.links.setDisabled(ids[0]!, null, acting);
        expect(enabled).toMatchObject({ changed: true });
        expect(enabled !== 'held' && enabled?.link).not.toHaveProperty('disabled');
        await expect(store.links.setDisabled(ids[0]!, null, acting)).resolves.toMatchObject({
          changed: false,
        });
        await expect(store.links.setDisabled(999_999, disabling, acting)).resolves.toBeNull();
        await expect(store.links.findById(999_999)).resolves.toBeNull();
      } finally {
        await store.close();
      }
    });

    it('stores tokens and organization keys only as hashes', async () => {
      const store = await open(server.freshDatabase());
      try {
        const f = await createTestCore({ store });
        await f.caller().links.create(f.body() as never);
        const everything: unknown[] = [];
        for (const name of Object.values(COLLECTIONS)) {
          everything.push(...(await store.db.collection(name).find().toArray()));
        }
        const dump = JSON.stringify(everything);
        expect(dump).not.toContain(f.token);
        expect(dump).not.toContain(f.organizationKey);
        expect(dump).toMatch(/"tokenHash":"[0-9a-f]{64}"/);
        expect(dump).toMatch(/"keyHash":"[0-9a-f]{64}"/);
      } finally {
        await store.close();
      }
    });

    it('shares rate limits across processes through MongoDB (rate-limiter-flexible)', async () => {
      const dbName = server.freshDatabase();
      const store = await open(dbName);
      // One limiter set on the store's client, one on its own client: two processes' view.
      const mine = await createMongoRateLimiters({
        store,
        uri: server.uriFor(dbName),
        perTokenLimit: 3,
        authFailureLimit: 2,
      });
      const theirs = await createMongoRateLimiters({
        uri: server.uriFor(dbName),
        perTokenLimit: 3,
        authFailureLimit: 2,
      });
      try {
        const indexes = await store.db.collection(COLLECTIONS.rateLimits).listIndexes().toArray();
        expect(indexes.find((index) => index.unique === true)?.key).toMatchObject({ key: 1 });
        expect(indexes.some((index) => index.expireAfterSeconds === 0)).toBe(true);

        await expect(mine.perToken.consume('alice')).resolves.toMatchObject({
          allowed: true,
          remaining: 2,
          limit: 3,
        });
        await expect(theirs.perToken.consume('alice')).resolves.toMatchObject({ remaining: 1 });
        await expect(mine.perToken.consume('alice')).resolves.toMatchObject({ allowed: true });
        await expect(theirs.perToken.consume('alice')).resolves.toMatchObject({
          allowed: false,
          remaining: 0,
        });
        await expect(mine.perToken.peek('bob')).resolves.toBeNull();
        await expect(mine.authFailures.consume('alice')).resolves.toMatchObject({
          allowed: true,
          remaining: 1,
        });
      } finally {
        await theirs.close();
        await mine.close();
        await store.close();
      }
    });

    it('runs the whole runtime on MongoDB from MONGODB_URI (store and limiters)', async () => {
      const dbName = server.freshDatabase();
      const config = loadConfig({ MONGODB_URI: server.uriFor(dbName), RATE_LIMIT_PER_MINUTE: '2' });
      const runtime = await createRuntime(config, silentLogger);
      try {
        expect(runtime.core.deps.store.kind).toBe('mongodb');
        expect(runtime.wantsDemo).toBe(false);
        const f = await createTestCore({ store: runtime.core.deps.store });
        const caller = () =>
          runtime.core.createCaller({ authorization: `Bearer ${f.token}`, clientAddress: '::1' });
        const created = await caller().links.create(f.body() as never);
        expect(created.short_url).toMatch(/^https:\/\/acme\.link\//);
        await caller().links.create(f.body() as never);
        await expect(caller().links.create(f.body() as never)).rejects.toMatchObject({
          reason: 'RATE_LIMITED',
        });
        const counted = await server.client
          .db(dbName)
          .collection(COLLECTIONS.rateLimits)
          .countDocuments();
        expect(counted).toBeGreaterThan(0);
      } finally {
        await runtime.close();
      }
    });

    if (availability.source === 'mongodb-memory-server') {
      it('reports a server that goes away mid-run as BackendUnavailableError', async () => {
        const { MongoMemoryServer } = await import('mongodb-memory-server');
        const doomed = await MongoMemoryServer.create();
        const store = await createMongoStore({
          uri: `${doomed.getUri()}doomed?serverSelectionTimeoutMS=1000`,
        });
        let running = true;
        try {
          await expect(store.ping()).resolves.toBeUndefined();
          await doomed.stop();
          running = false;
          await expect(store.ping()).rejects.toBeInstanceOf(BackendUnavailableError);
          await expect(store.links.insert(newLink())).rejects.toBeInstanceOf(
            BackendUnavailableError,
          );
        } finally {
          await store.close();
          if (running) await doomed.stop();
        }
      });
    }
  });
}

function createCoreOn(store: MongoStore, f: { token: string }) {
  return createCore({ store }).createCaller({
    authorization: `Bearer ${f.token}`,
    clientAddress: '203.0.113.10',
  });
}
