import { MongoNetworkError, MongoServerError, type Collection, type Db } from 'mongodb';
import { BackendUnavailableError, type RunningRecord } from '../../core';
import { INDEXES, COLLECTIONS } from '../../core/adapters/mongodb';
import type { IdempotencyDocument, LinkDocument } from '../../core/adapters/mongodb/documents';
import { ensureIndexes } from '../../core/adapters/mongodb/indexes';
import {
  idempotencyDocumentId,
  MongoIdempotencyStore,
} from '../../core/adapters/mongodb/mongo-idempotency-store';

/**
 * The MongoDB idempotency adapter against a fake collection that records every call and
 * answers as the server would for these filters (a unique `_id`, `$lte` on dates, `$exists`). What the real
 * server does with them is checked by the storage contract suite when MONGODB_URI is set.
 */
type Filter = Record<string, unknown>;
type Call = { method: string; args: unknown[] };

class FakeCollection {
  readonly calls: Call[] = [];
  readonly documents = new Map<string, IdempotencyDocument>();
  /** Errors the next calls throw, by method. */
  readonly failNext: Record<string, Error[]> = {};

  private matches(document: IdempotencyDocument, filter: Filter): boolean {
    return Object.entries(filter).every(([field, wanted]) => {
      const actual = (document as unknown as Record<string, unknown>)[field];
      if (typeof wanted === 'object' && wanted !== null && '$lte' in wanted) {
        return actual instanceof Date && actual <= (wanted.$lte as Date);
      }
      if (typeof wanted === 'object' && wanted !== null && '$exists' in wanted) {
        return (actual !== undefined) === wanted.$exists;
      }
      return actual === wanted;
    });
  }

  private failure(method: string): Error | undefined {
    return this.failNext[method]?.shift();
  }

  replaceOne(filter: Filter, replacement: object, options?: { upsert?: boolean }) {
    this.calls.push({ method: 'replaceOne', args: [filter, replacement, options] });
    const error = this.failure('replaceOne');
    if (error) return Promise.reject(error);
    const id = filter._id as string;
    const existing = this.documents.get(id);
    if (existing && this.matches(existing, filter)) {
      this.documents.set(id, { ...(replacement as IdempotencyDocument), _id: id });
      return Promise.resolve({ matchedCount: 1 });
    }
    if (!options?.upsert) return Promise.resolve({ matchedCount: 0 });
    if (existing) {
      return Promise.reject(
        new MongoServerError({
          code: 11000,
          errmsg: `E11000 duplicate key error collection: shortlink.idempotency_keys index: _id_ dup key: { _id: "${id}" }`,
          keyPattern: { _id: 1 },
        }),
      );
    }
    this.documents.set(id, { ...(replacement as IdempotencyDocument), _id: id });
    return Promise.resolve({ matchedCount: 0, upsertedId: id });
  }

  findOne(filter: Filter) {
    this.calls.push({ method: 'findOne', args: [filter] });
    const error = this.failure('findOne');
    if (error) return Promise.reject(error);
    const found = this.documents.get(filter._id as string);
    return Promise.resolve(found && this.matches(found, filter) ? { ...found } : null);
  }

  deleteOne(filter: Filter) {
    this.calls.push({ method: 'deleteOne', args: [filter] });
    const found = this.documents.get(filter._id as string);
    if (found && this.matches(found, filter)) this.documents.delete(filter._id as string);
    return Promise.resolve({ deletedCount: found ? 1 : 0 });
  }

  methods(): string[] {
    return this.calls.map((call) => call.method);
  }
}

const NOW = new Date('2026-06-01T12:00:00.000Z');
const later = (seconds: number) => new Date(NOW.getTime() + seconds * 1000);
const SCOPE = { userId: 'alice', key: 'order-42' };
const ID = 'order-42 alice';
const running = (owner: string, seconds = 60): RunningRecord => ({
  state: 'running',
  owner,
  fingerprint: 'f'.repeat(64),
  expiresAt: later(seconds),
});

function setup() {
  const collection = new FakeCollection();
  const store = new MongoIdempotencyStore(
    collection as unknown as Collection<IdempotencyDocument>,
    {} as Collection<LinkDocument>,
  );
  return { collection, store };
}

describe('MongoDB idempotency records (fake collection)', () => {
  it('names a document by the key, then the user (keys never hold a space)', () => {
    expect(idempotencyDocumentId(SCOPE)).toBe(ID);
    expect(idempotencyDocumentId({ userId: 'a b', key: 'k' })).toBe('k a b');
  });

  it('claims an absent key with one upsert whose filter matches only an expired record', async () => {
    const { collection, store } = setup();
    await expect(store.claim(SCOPE, running('me'), NOW)).resolves.toEqual({ claimed: true });
    expect(collection.calls).toEqual([
      {
        method: 'replaceOne',
        args: [{ _id: ID, expiresAt: { $lte: NOW } }, running('me'), { upsert: true }],
      },
    ]);
    expect(collection.documents.get(ID)).toEqual({ _id: ID, ...running('me') });
  });

  it('reads the live record after the unique _id refused the upsert', async () => {
    const { collection, store } = setup();
    await store.claim(SCOPE, running('first'), NOW);
    await expect(store.claim(SCOPE, running('second'), later(1))).resolves.toEqual({
      claimed: false,
      existing: running('first'),
    });
    expect(collection.methods()).toEqual(['replaceOne', 'replaceOne', 'findOne']);
    expect(collection.calls[2]?.args).toEqual([{ _id: ID }]);
    expect(collection.documents.get(ID)).toMatchObject({ owner: 'first' });
  });

  it('replaces an expired record in the same upsert', async () => {
    const { collection, store } = setup();
    await store.claim(SCOPE, running('crashed', 60), NOW);
    await expect(store.claim(SCOPE, running('next', 120), later(60))).resolves.toEqual({
      claimed: true,
    });
    expect(collection.methods()).toEqual(['replaceOne', 'replaceOne']);
    expect(collection.documents.get(ID)).toMatchObject({ owner: 'next' });
  });

  it('claims again when the record it lost to vanished before it was read', async () => {
    const { collection, store } = setup();
    await store.claim(SCOPE, running('first'), NOW);
    const realFindOne = collection.findOne.bind(collection);
    collection.findOne = (filter: Filter) => {
      collection.documents.delete(ID); // the TTL monitor or a release, in between
      return realFindOne(filter);
    };
    await expect(store.claim(SCOPE, running('second'), later(1))).resolves.toEqual({
      claimed: true,
    });
    expect(collection.methods()).toEqual(['replaceOne', 'replaceOne', 'findOne', 'replaceOne']);
  });

  it('gives up after three attempts that never settle (a bug, not a retry loop)', async () => {
    const { collection, store } = setup();
    const duplicate = () =>
      new MongoServerError({ code: 11000, errmsg: 'E11000', keyPattern: { _id: 1 } });
    collection.failNext.replaceOne = [duplicate(), duplicate(), duplicate()];
    await expect(store.claim(SCOPE, running('me'), NOW)).rejects.toThrow(/did not settle/);
    expect(collection.methods()).toEqual([
      'replaceOne',
      'findOne',
      'replaceOne',
      'findOne',
      'replaceOne',
      'findOne',
    ]);
  });

  it('reports an unreachable database as BackendUnavailableError', async () => {
    const { collection, store } = setup();
    collection.failNext.replaceOne = [new MongoNetworkError('connection reset')];
    await expect(store.claim(SCOPE, running('me'), NOW)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
    await store.claim(SCOPE, running('first'), NOW);
    collection.failNext.findOne = [new MongoNetworkError('connection reset')];
    await expect(store.claim(SCOPE, running('me'), NOW)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });

  it('completes and releases only the owner’s running record', async () => {
    const { collection, store } = setup();
    await store.claim(SCOPE, running('owner'), NOW);
    const done = {
      state: 'completed' as const,
      fingerprint: 'f'.repeat(64),
      outcome: { code: 0, body: '{"id":1}' },
      expiresAt: later(86400),
    };
    await store.complete(SCOPE, 'intruder', done);
    await store.release(SCOPE, 'intruder');
    expect(collection.documents.get(ID)).toMatchObject({ state: 'running', owner: 'owner' });
    await store.complete(SCOPE, 'owner', done);
    expect(collection.calls.filter((c) => c.method !== 'deleteOne').at(-1)).toEqual({
      method: 'replaceOne',
      args: [{ _id: ID, state: 'running', owner: 'owner' }, done, undefined],
    });
    expect(collection.documents.get(ID)).toEqual({ _id: ID, ...done });
    await expect(store.claim(SCOPE, running('late'), later(5))).resolves.toEqual({
      claimed: false,
      existing: done,
    });

    await store.claim({ userId: 'bob', key: 'k' }, running('bob'), NOW);
    await store.release({ userId: 'bob', key: 'k' }, 'bob');
    expect(collection.calls.at(-1)).toEqual({
      method: 'deleteOne',
      args: [{ _id: 'k bob', state: 'running', owner: 'bob', pending: { $exists: false } }],
    });
    expect(collection.documents.has('k bob')).toBe(false);
  });

  it('creates the TTL index on expiresAt at start-up (expireAfterSeconds 0)', async () => {
    const created: Array<{ collection: string; key: unknown; options: unknown }> = [];
    const db = {
      collection: (name: string) => ({
        createIndex: (key: unknown, options: unknown) => {
          created.push({ collection: name, key, options });
          return Promise.resolve('ok');
        },
        // A new database: no collection has an index yet.
        listIndexes: () => ({ toArray: () => Promise.resolve([]) }),
      }),
    } as unknown as Db;
    await ensureIndexes(db);
    expect(created).toContainEqual({
      collection: COLLECTIONS.idempotency,
      key: { expiresAt: 1 },
      options: { name: 'expires_at_ttl', unique: false, expireAfterSeconds: 0 },
    });
    expect(created).toHaveLength(Object.keys(INDEXES).length);
    // The unique indexes keep their options unchanged (no expiry).
    expect(created).toContainEqual({
      collection: COLLECTIONS.links,
      key: { domain: 1, alias: 1 },
      options: { name: 'domain_alias_unique', unique: true },
    });
  });
});
