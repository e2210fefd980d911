import { MongoNetworkError, MongoServerError, type Collection, type Db } from 'mongodb';
import { BackendUnavailableError, type LinkRecord } from '../../core';
import type { CounterDocument, LinkDocument } from '../../core/adapters/mongodb/documents';
import { ensureIndexes, INDEXES } from '../../core/adapters/mongodb/indexes';
import { MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { newLink } from '../storage/fixtures';

/**
 * The MongoDB link store's governing operations (findById, list, setDisabled) on a fake `links`
 * collection that records every driver call with its arguments and answers from documents it
 * holds, evaluating only the filters these operations send. What is checked: the commands sent
 * (filters, sort, limit, the conditional update) and how the answers map back to records. The
 * real server run is the storage contract in test/storage (with MONGODB_URI).
 */
type Call = { method: string; args: unknown[] };
type Stored = LinkDocument & { _id: number };

function matches(document: Stored, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    const value = (document as unknown as Record<string, unknown>)[field];
    if (typeof condition === 'object' && condition !== null) {
      if ('$exists' in condition) return (value !== undefined) === condition.$exists;
      if ('$lt' in condition) return (value as number) < (condition.$lt as number);
      throw new Error(`the fake does not evaluate ${JSON.stringify(condition)}`);
    }
    return value === condition;
  });
}

function fakeLinks(documents: Stored[], fail: Partial<Record<string, Error>> = {}) {
  const calls: Call[] = [];
  const record = (method: string, args: unknown[]) => {
    calls.push({ method, args });
    const error = fail[method];
    if (error) {
      delete fail[method];
      return Promise.reject(error);
    }
    return Promise.resolve();
  };
  const copy = (document: Stored | undefined) => (document ? structuredClone(document) : null);
  const collection = {
    findOne: async (filter: Record<string, unknown>, options?: unknown) => {
      await record('findOne', options === undefined ? [filter] : [filter, options]);
      return copy(documents.find((document) => matches(document, filter)));
    },
    find: (filter: Record<string, unknown>) => {
      const cursor = {
        sorted: undefined as unknown,
        limited: 0,
        sort(order: unknown) {
          cursor.sorted = order;
          return cursor;
        },
        limit(count: number) {
          cursor.limited = count;
          return cursor;
        },
        async toArray() {
          await record('find', [filter, { sort: cursor.sorted, limit: cursor.limited }]);
          return documents
            .filter((document) => matches(document, filter))
            .sort((a, b) => b._id - a._id)
            .slice(0, cursor.limited)
            .map((document) => structuredClone(document));
        },
      };
      return cursor;
    },
    findOneAndUpdate: async (
      filter: Record<string, unknown>,
      update: { $set?: { disabled: unknown }; $unset?: Record<string, unknown> },
      options: unknown,
    ) => {
      await record('findOneAndUpdate', [filter, update, options]);
      const found = documents.find((document) => matches(document, filter));
      if (!found) return null;
      if (update.$set) found.disabled = structuredClone(update.$set.disabled) as never;
      if (update.$unset) delete found.disabled;
      return copy(found);
    },
  } as unknown as Collection<LinkDocument>;
  const store = new MongoLinkStore(
    collection,
    new MongoIdSequence({} as unknown as Collection<CounterDocument>),
  );
  return { store, calls, documents };
}

const at = new Date('2026-11-01T08:00:00.000Z');
const disabling = { reason: 'phishing report #12', at, by: 'alice' };

function stored(id: number, overrides: Partial<Stored> = {}): Stored {
  return { _id: id, ...newLink({ alias: `l${id}` }), ...overrides };
}

function recordOf(document: Stored): LinkRecord {
  const { _id, ...fields } = document;
  return { id: _id, ...fields };
}

const networkError = () => new MongoNetworkError('connection 3 to 10.0.0.5:27017 closed');

describe('MongoDB link store: findById', () => {
  it('reads by _id and answers the record, with its disabled state when there is one', async () => {
    const active = stored(1);
    const disabled = stored(2, { disabled: disabling });
    const { store, calls } = fakeLinks([active, disabled]);
    const first = await store.findById(1);
    expect(first).toEqual(recordOf(active));
    expect(first).not.toHaveProperty('disabled');
    await expect(store.findById(2)).resolves.toEqual({
      ...recordOf(active),
      id: 2,
      alias: 'l2',
      disabled: { reason: 'phishing report #12', at, by: 'alice' },
    });
    await expect(store.findById(3)).resolves.toBeNull();
    expect(calls).toEqual([
      { method: 'findOne', args: [{ _id: 1 }] },
      { method: 'findOne', args: [{ _id: 2 }] },
      { method: 'findOne', args: [{ _id: 3 }] },
    ]);
  });

  it('reports an unreachable server as BackendUnavailableError (code 23)', async () => {
    const { store } = fakeLinks([], { findOne: networkError() });
    await expect(store.findById(1)).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

describe('MongoDB link store: list', () => {
  const documents = () => [
    stored(1),
    stored(2, { groupApiId: '2' }),
    stored(3, { organizationId: 'other', domain: 'other.link' }),
    stored(4, { disabled: disabling }),
    stored(5),
  ];

  it('asks newest first by _id, with the limit, and answers the records in that order', async () => {
    const { store, calls } = fakeLinks(documents());
    const page = await store.list({ organizationId: 'acme', limit: 2 });
    expect(page.map((link) => link.id)).toEqual([5, 4]);
    expect(page[1]?.disabled).toEqual(disabling);
    expect(calls).toEqual([
      { method: 'find', args: [{ organizationId: 'acme' }, { sort: { _id: -1 }, limit: 2 }] },
    ]);
  });

  it('pages with _id below beforeId, and filters on the group when given', async () => {
    const { store, calls } = fakeLinks(documents());
    const next = await store.list({ organizationId: 'acme', beforeId: 4, limit: 2 });
    expect(next.map((link) => link.id)).toEqual([2, 1]);
    const group = await store.list({ organizationId: 'acme', groupApiId: '1', limit: 10 });
    expect(group.map((link) => link.id)).toEqual([5, 4, 1]);
    const everyLink = await store.list({ beforeId: 4, limit: 10 });
    expect(everyLink.map((link) => link.id)).toEqual([3, 2, 1]);
    expect(calls.map((call) => call.args)).toEqual([
      [
        { organizationId: 'acme', _id: { $lt: 4 } },
        { sort: { _id: -1 }, limit: 2 },
      ],
      [
        { organizationId: 'acme', groupApiId: '1' },
        { sort: { _id: -1 }, limit: 10 },
      ],
      [{ _id: { $lt: 4 } }, { sort: { _id: -1 }, limit: 10 }],
    ]);
  });

  it('sends nothing for a limit below 1 (the server would read limit 0 as "no limit")', async () => {
    const { store, calls } = fakeLinks(documents());
    await expect(store.list({ organizationId: 'acme', limit: 0 })).resolves.toEqual([]);
    expect(calls).toEqual([]);
  });

  it('has an index for each listing: organization, then group, then _id descending', () => {
    expect(INDEXES.linksOfOrganization).toMatchObject({
      collection: 'links',
      key: { organizationId: 1, _id: -1 },
      unique: false,
    });
    expect(Object.keys(INDEXES.linksOfOrganization.key)).toEqual(['organizationId', '_id']);
    expect(INDEXES.linksOfGroup).toMatchObject({
      collection: 'links',
      key: { organizationId: 1, groupApiId: 1, _id: -1 },
      unique: false,
    });
    expect(Object.keys(INDEXES.linksOfGroup.key)).toEqual(['organizationId', 'groupApiId', '_id']);
  });

  it('reports an unreachable server as BackendUnavailableError (code 23)', async () => {
    const { store } = fakeLinks([], { find: networkError() });
    await expect(store.list({ limit: 5 })).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

describe('MongoDB link store: setDisabled', () => {
  it('disables with one update conditional on the link being active', async () => {
    const { store, calls, documents } = fakeLinks([stored(1), stored(2)]);
    const outcome = await store.setDisabled(1, disabling);
    expect(outcome).toEqual({
      link: { ...recordOf(stored(1)), disabled: disabling },
      changed: true,
    });
    expect(calls).toEqual([
      {
        method: 'findOneAndUpdate',
        args: [
          { _id: 1, disabled: { $exists: false } },
          { $set: { disabled: { reason: 'phishing report #12', at, by: 'alice' } } },
          { returnDocument: 'after' },
        ],
      },
    ]);
    expect(documents[1]).not.toHaveProperty('disabled');
  });

  it('leaves a disabled link as it is, keeping its first reason (changed false)', async () => {
    const first = { reason: 'first', at: new Date(0), by: 'bob' };
    const { store, calls } = fakeLinks([stored(1, { disabled: first })]);
    const outcome = await store.setDisabled(1, disabling);
    expect(outcome).toEqual({ link: { ...recordOf(stored(1)), disabled: first }, changed: false });
    expect(calls.map((call) => call.method)).toEqual(['findOneAndUpdate', 'findOne']);
    expect(calls[1]?.args).toEqual([{ _id: 1 }]);
  });

  it('enables with $unset, conditional on the link being disabled', async () => {
    const { store, calls } = fakeLinks([stored(1, { disabled: disabling })]);
    const outcome = await store.setDisabled(1, null);
    expect(outcome).toEqual({ link: recordOf(stored(1)), changed: true });
    expect(outcome?.link).not.toHaveProperty('disabled');
    expect(calls).toEqual([
      {
        method: 'findOneAndUpdate',
        args: [
          { _id: 1, disabled: { $exists: true } },
          { $unset: { disabled: '' } },
          { returnDocument: 'after' },
        ],
      },
    ]);
    // Enabling an active link changes nothing.
    await expect(store.setDisabled(1, null)).resolves.toEqual({
      link: recordOf(stored(1)),
      changed: false,
    });
  });

  it('answers null for an unknown id, having written nothing', async () => {
    const { store, calls, documents } = fakeLinks([stored(1)]);
    await expect(store.setDisabled(9, disabling)).resolves.toBeNull();
    await expect(store.setDisabled(9, null)).resolves.toBeNull();
    expect(calls.map((call) => call.method)).toEqual([
      'findOneAndUpdate',
      'findOne',
      'findOneAndUpdate',
      'findOne',
    ]);
    expect(documents).toEqual([stored(1)]);
  });

  it('of two concurrent disables exactly one changes the link', async () => {
    const { store } = fakeLinks([stored(1)]);
    const outcomes = await Promise.all([
      store.setDisabled(1, disabling),
      store.setDisabled(1, { ...disabling, reason: 'second' }),
    ]);
    expect(outcomes.map((outcome) => outcome?.changed).sort()).toEqual([false, true]);
    expect(outcomes.map((outcome) => outcome?.link.disabled?.reason)).toEqual([
      'phishing report #12',
      'phishing report #12',
    ]);
  });

  it('adds the shard key to the condition when a sharded cluster asks for it (before 7.0)', async () => {
    const shardKeyNotFound = new MongoServerError({
      code: 61,
      codeName: 'ShardKeyNotFound',
      errmsg: 'Query for sharded findAndModify must contain the shard key',
    });
    const { store, calls } = fakeLinks([stored(1)], { findOneAndUpdate: shardKeyNotFound });
    const outcome = await store.setDisabled(1, disabling);
    expect(outcome).toEqual({
      link: { ...recordOf(stored(1)), disabled: disabling },
      changed: true,
    });
    expect(calls.map((call) => call.args)).toEqual([
      [
        { _id: 1, disabled: { $exists: false } },
        { $set: { disabled: disabling } },
        { returnDocument: 'after' },
      ],
      [{ _id: 1 }, { projection: { _id: 0, domain: 1, alias: 1 } }],
      [
        { _id: 1, disabled: { $exists: false }, domain: 'acme.link', alias: 'l1' },
        { $set: { disabled: disabling } },
        { returnDocument: 'after' },
      ],
    ]);
  });

  it('reports an unreachable server as BackendUnavailableError, other errors unchanged', async () => {
    const unreachable = fakeLinks([stored(1)], { findOneAndUpdate: networkError() });
    await expect(unreachable.store.setDisabled(1, disabling)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
    const refused = new MongoServerError({ code: 13, errmsg: 'not authorized on shortlink' });
    const denied = fakeLinks([stored(1)], { findOneAndUpdate: refused });
    await expect(denied.store.setDisabled(1, disabling)).rejects.toBe(refused);
    const lookupLost = fakeLinks([stored(1, { disabled: disabling })], { findOne: networkError() });
    await expect(lookupLost.store.setDisabled(1, disabling)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });
});

describe('MongoDB link store: indexes at start-up', () => {
  it('ensureIndexes creates the listing indexes (not unique) with the others', async () => {
    const created: Array<{ collection: string; key: unknown; options: unknown }> = [];
    const db = {
      collection: (collection: string) => ({
        createIndex: (key: unknown, options: unknown) => {
          created.push({ collection, key, options });
          return Promise.resolve('ok');
        },
      }),
    } as unknown as Db;
    await ensureIndexes(db);
    expect(created).toContainEqual({
      collection: 'links',
      key: { organizationId: 1, _id: -1 },
      options: { name: 'organization_newest_first', unique: false },
    });
    expect(created).toContainEqual({
      collection: 'links',
      key: { organizationId: 1, groupApiId: 1, _id: -1 },
      options: { name: 'organization_group_newest_first', unique: false },
    });
    expect(created).toHaveLength(Object.keys(INDEXES).length);
  });
});
