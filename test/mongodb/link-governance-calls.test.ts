import { MongoNetworkError, MongoServerError, type Collection, type Db } from 'mongodb';
import {
  BackendUnavailableError,
  type LinkActing,
  type LinkChangeOutcome,
  type LinkPosition,
  type LinkRecord,
} from '../../core';
import { positionOf } from '../../core/ports/link-store';
import type {
  CounterDocument,
  HistoryDocument,
  LinkDocument,
} from '../../core/adapters/mongodb/documents';
import { ensureIndexes, INDEXES } from '../../core/adapters/mongodb/indexes';
import { MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { newLink } from '../storage/fixtures';

/**
 * The MongoDB link store's governing operations (findById, list, setDisabled, update, takeVisit,
 * history) on fake `links` and `link_history` collections that record every driver call with its
 * arguments and answer from documents they hold, evaluating only the filters and update operators
 * these operations send. They are fakes, not MongoDB: what is checked is the commands sent
 * (filters, sort, limit, the conditional updates, the revision a change is written over) and how
 * the answers map back to records. The real server run is the storage contract in test/storage
 * (with MONGODB_URI).
 */
type Call = { method: string; args: unknown[] };
type Stored = LinkDocument & { _id: number };

/** The one `$expr` these operations send (takeVisit's "below its limit"), evaluated. */
const BELOW_LIMIT = { $lt: [{ $ifNull: ['$visits', 0] }, '$maxVisits'] };

/** A field of a document by its path (`_id.link`). */
function valueAt(document: object, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (value, key) =>
        typeof value === 'object' && value !== null
          ? (value as Record<string, unknown>)[key]
          : undefined,
      document,
    );
}

/** The order a `sort` specification asks for (fields in turn, 1 ascending, -1 descending). */
function bySpec(spec: Record<string, 1 | -1>) {
  return (a: object, b: object): number => {
    for (const [field, direction] of Object.entries(spec)) {
      const [x, y] = [valueAt(a, field), valueAt(b, field)] as [number, number];
      if (x < y) return -direction;
      if (x > y) return direction;
    }
    return 0;
  };
}

function matches(document: object, filter: Record<string, unknown>): boolean {
  return Object.entries(filter).every(([field, condition]) => {
    if (field === '$expr') {
      if (JSON.stringify(condition) !== JSON.stringify(BELOW_LIMIT)) {
        throw new Error(`the fake does not evaluate ${JSON.stringify(condition)}`);
      }
      const { visits, maxVisits } = document as Stored;
      return (visits ?? 0) < (maxVisits as number);
    }
    if (field === '$or') {
      return (condition as Array<Record<string, unknown>>).some((branch) =>
        matches(document, branch),
      );
    }
    const value = valueAt(document, field);
    // As the server reads it: null matches a missing field too.
    if (condition === null) return value === undefined || value === null;
    // structuredClone's dates may come from another realm than this file's Date.
    const isDate = (candidate: unknown): candidate is Date =>
      Object.prototype.toString.call(candidate) === '[object Date]';
    if (isDate(condition)) return isDate(value) && value.getTime() === condition.getTime();
    if (typeof condition === 'object') {
      if ('$exists' in condition) return (value !== undefined) === condition.$exists;
      if ('$lt' in condition) return (value as number) < (condition.$lt as number);
      if ('$gt' in condition) return (value as number) > (condition.$gt as number);
      throw new Error(`the fake does not evaluate ${JSON.stringify(condition)}`);
    }
    return value === condition;
  });
}

/** `update` applied to `document` in place, for the operators these operations send. */
function apply(document: Record<string, unknown>, update: Record<string, unknown>): void {
  for (const [operator, fields] of Object.entries(update)) {
    for (const [field, value] of Object.entries(fields as Record<string, unknown>)) {
      const current = document[field];
      if (operator === '$set') document[field] = structuredClone(value);
      else if (operator === '$unset') delete document[field];
      else if (operator === '$inc')
        document[field] = ((current as number) ?? 0) + (value as number);
      else if (operator === '$max') {
        if (current === undefined || (current as number) < (value as number)) {
          document[field] = value;
        }
      } else throw new Error(`the fake does not apply ${operator}`);
    }
  }
}

const duplicateHistoryKey = () =>
  new MongoServerError({
    code: 11000,
    errmsg:
      'E11000 duplicate key error collection: shortlink.link_history index: _id_ dup key: { ... }',
    keyPattern: { _id: 1 },
  });

interface FakeOptions {
  /** An error for the next call of a method (`findOne`, `link_history.insertOne`...), once. */
  fail?: Partial<Record<string, Error>>;
  /** Runs just before each findOneAndUpdate is evaluated (another process's change, say). */
  beforeWrite?: (documents: Stored[]) => void;
}

/**
 * A `links` and a `link_history` collection that record every call (the history's as
 * `link_history.<method>`) and answer from documents they hold.
 */
function fakeLinks(documents: Stored[], options: FakeOptions = {}) {
  const fail = options.fail ?? {};
  const calls: Call[] = [];
  const entries: HistoryDocument[] = [];
  const record = (method: string, args: unknown[]) => {
    calls.push({ method, args: structuredClone(args) });
    const error = fail[method];
    if (error) {
      delete fail[method];
      return Promise.reject(error);
    }
    return Promise.resolve();
  };
  const copy = <T>(document: T | undefined) => (document ? structuredClone(document) : null);
  const cursorOver = <T extends object>(
    method: string,
    filter: Record<string, unknown>,
    all: () => T[],
    order: (a: T, b: T) => number,
  ) => {
    const cursor = {
      sorted: undefined as unknown,
      limited: 0,
      sort(by: unknown) {
        cursor.sorted = by;
        return cursor;
      },
      limit(count: number) {
        cursor.limited = count;
        return cursor;
      },
      async toArray() {
        await record(method, [filter, { sort: cursor.sorted, limit: cursor.limited }]);
        return all()
          .filter((document) => matches(document, filter))
          .sort(cursor.sorted ? bySpec(cursor.sorted as Record<string, 1 | -1>) : order)
          .slice(0, cursor.limited)
          .map((document) => structuredClone(document));
      },
    };
    return cursor;
  };
  const links = {
    findOne: async (filter: Record<string, unknown>, findOptions?: unknown) => {
      await record('findOne', findOptions === undefined ? [filter] : [filter, findOptions]);
      return copy(documents.find((document) => matches(document, filter)));
    },
    find: (filter: Record<string, unknown>) =>
      cursorOver(
        'find',
        filter,
        () => documents,
        (a, b) => b._id - a._id,
      ),
    findOneAndUpdate: async (
      filter: Record<string, unknown>,
      update: Record<string, unknown>,
      updateOptions: unknown,
    ) => {
      await record('findOneAndUpdate', [filter, update, updateOptions]);
      options.beforeWrite?.(documents);
      const found = documents.find((document) => matches(document, filter));
      if (!found) return null;
      apply(found, update);
      return copy(found);
    },
    updateOne: async (filter: Record<string, unknown>, update: Record<string, unknown>) => {
      await record('updateOne', [filter, update]);
      const found = documents.find((document) => matches(document, filter));
      if (found) apply(found, update);
      return { acknowledged: true, matchedCount: found ? 1 : 0, modifiedCount: found ? 1 : 0 };
    },
  } as unknown as Collection<LinkDocument>;
  const history = {
    insertOne: async (document: HistoryDocument) => {
      await record('link_history.insertOne', [document]);
      const { link, position } = document._id;
      if (entries.some(({ _id }) => _id.link === link && _id.position === position)) {
        throw duplicateHistoryKey();
      }
      entries.push(structuredClone(document));
      return { acknowledged: true, insertedId: document._id };
    },
    find: (filter: Record<string, unknown>) =>
      cursorOver(
        'link_history.find',
        filter,
        () => entries,
        (a, b) => a._id.link - b._id.link || a._id.position - b._id.position,
      ),
  } as unknown as Collection<HistoryDocument>;
  const store = new MongoLinkStore(
    links,
    new MongoIdSequence({} as unknown as Collection<CounterDocument>),
    history,
  );
  return { store, calls, documents, entries };
}

const at = new Date('2026-11-01T08:00:00.000Z');
const disabling = { reason: 'phishing report #12', at, by: 'user:alice' };
const member: LinkActing = { at, by: 'user:alice', refuseHeld: true };
const admin: LinkActing = { at, by: 'admin', refuseHeld: false };

function stored(id: number, overrides: Partial<Stored> = {}): Stored {
  return { _id: id, ...newLink({ alias: `l${id}` }), ...overrides };
}

function recordOf(document: Stored): LinkRecord {
  const { _id, revision: _r, lastChange: _l, ...fields } = document;
  return { id: _id, ...fields };
}

/** A change's outcome; fails the test on 'held' or null. */
function outcome(answer: LinkChangeOutcome | 'held' | null): LinkChangeOutcome {
  if (answer === null || answer === 'held') throw new Error(`the store answered ${answer}`);
  return answer;
}

/**
 * The $set of every field of a stored link but its id, its shard key (domain and alias, which
 * never change) and visits.
 */
function fieldsOf(document: Stored): Record<string, unknown> {
  const {
    _id,
    domain: _d,
    alias: _a,
    visits: _v,
    revision: _r,
    lastChange: _l,
    ...fields
  } = document;
  return fields;
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
      disabled: disabling,
    });
    await expect(store.findById(3)).resolves.toBeNull();
    expect(calls).toEqual([
      { method: 'findOne', args: [{ _id: 1 }] },
      { method: 'findOne', args: [{ _id: 2 }] },
      { method: 'findOne', args: [{ _id: 3 }] },
    ]);
  });

  it('reports an unreachable server as BackendUnavailableError (code 23)', async () => {
    const { store } = fakeLinks([], { fail: { findOne: networkError() } });
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

  it('asks newest first by creation time, then _id, with the limit, and answers the records in that order', async () => {
    const { store, calls } = fakeLinks(documents());
    const page = await store.list({ organizationId: 'acme', limit: 2 });
    expect(page.map((link) => link.id)).toEqual([5, 4]);
    expect(page[1]?.disabled).toEqual(disabling);
    expect(calls).toEqual([
      {
        method: 'find',
        args: [{ organizationId: 'acme' }, { sort: { createdAt: -1, _id: -1 }, limit: 2 }],
      },
    ]);
  });

  it('pages after a position (earlier, or as early with a lower _id), and filters on the group when given', async () => {
    const { store, calls } = fakeLinks(documents());
    const createdAt = documents()[0]!.createdAt;
    const next = await store.list({
      organizationId: 'acme',
      before: { createdAt, id: 4 },
      limit: 2,
    });
    expect(next.map((link) => link.id)).toEqual([2, 1]);
    const group = await store.list({ organizationId: 'acme', groupApiId: '1', limit: 10 });
    expect(group.map((link) => link.id)).toEqual([5, 4, 1]);
    const everyLink = await store.list({ before: { createdAt, id: 4 }, limit: 10 });
    expect(everyLink.map((link) => link.id)).toEqual([3, 2, 1]);
    const after = [{ createdAt: { $lt: createdAt } }, { createdAt, _id: { $lt: 4 } }];
    const sort = { createdAt: -1, _id: -1 };
    expect(calls.map((call) => call.args)).toEqual([
      [
        { organizationId: 'acme', $or: after },
        { sort, limit: 2 },
      ],
      [
        { organizationId: 'acme', groupApiId: '1' },
        { sort, limit: 10 },
      ],
      [{ $or: after }, { sort, limit: 10 }],
    ]);
  });

  it('orders by creation time where ids disagree (blocks of several processes), paging across them', async () => {
    const at = (seconds: number) => new Date(Date.UTC(2026, 4, 4, 10, 0, seconds));
    // Process B's block (1001...) made a link before process A's (1...) made theirs.
    const { store } = fakeLinks([
      stored(1001, { createdAt: at(0) }),
      stored(2, { createdAt: at(5) }),
      stored(1002, { createdAt: at(10) }),
      stored(3, { createdAt: at(10) }),
      stored(4, { createdAt: at(-5) }),
    ]);
    const all = await store.list({ organizationId: 'acme', limit: 10 });
    expect(all.map((link) => link.id)).toEqual([1002, 3, 2, 1001, 4]);
    const paged: number[][] = [];
    let before: LinkPosition | undefined;
    for (;;) {
      const page = await store.list({
        organizationId: 'acme',
        limit: 2,
        ...(before && { before }),
      });
      paged.push(page.map((link) => link.id));
      const last = page.at(-1);
      if (page.length < 2 || !last) break;
      before = positionOf(last);
    }
    expect(paged).toEqual([[1002, 3], [2, 1001], [4]]);
  });

  it('sends nothing for a limit below 1 (the server would read limit 0 as "no limit")', async () => {
    const { store, calls } = fakeLinks(documents());
    await expect(store.list({ organizationId: 'acme', limit: 0 })).resolves.toEqual([]);
    expect(calls).toEqual([]);
  });

  it('has an index for each listing: organization, then group, then creation time and _id descending', () => {
    const keysOf = (index: { key: object }) => Object.entries(index.key);
    expect(INDEXES.linksOfOrganization).toMatchObject({ collection: 'links', unique: false });
    expect(keysOf(INDEXES.linksOfOrganization)).toEqual([
      ['organizationId', 1],
      ['createdAt', -1],
      ['_id', -1],
    ]);
    expect(INDEXES.linksOfGroup).toMatchObject({ collection: 'links', unique: false });
    expect(keysOf(INDEXES.linksOfGroup)).toEqual([
      ['organizationId', 1],
      ['groupApiId', 1],
      ['createdAt', -1],
      ['_id', -1],
    ]);
    expect(keysOf(INDEXES.linksNewestFirst)).toEqual([
      ['createdAt', -1],
      ['_id', -1],
    ]);
  });

  it('reports an unreachable server as BackendUnavailableError (code 23)', async () => {
    const { store } = fakeLinks([], { fail: { find: networkError() } });
    await expect(store.list({ limit: 5 })).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

describe('MongoDB link store: a change (setDisabled, update) as one write over the revision read', () => {
  const disabledEntry = (position: number) => ({
    kind: 'disabled',
    at,
    by: 'user:alice',
    reason: 'phishing report #12',
    _id: { link: 1, position },
  });

  it('reads the link, writes over revision null (never changed) with lastChange, then copies it to link_history', async () => {
    const { store, calls, documents, entries } = fakeLinks([stored(1), stored(2)]);
    const answer = await store.setDisabled(1, disabling, member);
    expect(answer).toEqual({
      link: { ...recordOf(stored(1)), disabled: disabling },
      changed: true,
    });
    expect(calls).toEqual([
      { method: 'findOne', args: [{ _id: 1 }] },
      {
        method: 'findOneAndUpdate',
        args: [
          // The shard key (domain, alias) from the start: no retry for a sharded cluster.
          { _id: 1, domain: 'acme.link', alias: 'l1', revision: null },
          {
            $set: {
              ...fieldsOf(stored(1)),
              disabled: disabling,
              revision: 1,
              lastChange: disabledEntry(1),
            },
            $unset: { visits: '' },
          },
          { returnDocument: 'after' },
        ],
      },
      { method: 'link_history.insertOne', args: [disabledEntry(1)] },
    ]);
    expect(entries).toEqual([disabledEntry(1)]);
    expect(documents[0]).toMatchObject({ revision: 1, lastChange: disabledEntry(1) });
    expect(documents[1]).toEqual(stored(2));
  });

  it('writes the next change over the revision it read, copying the last one first (a duplicate key is no failure)', async () => {
    const { store, calls, entries } = fakeLinks([stored(1)]);
    await store.setDisabled(1, disabling, member);
    calls.length = 0;
    const enabled = await store.setDisabled(1, null, member);
    expect(enabled).toEqual({ link: recordOf(stored(1)), changed: true });
    const enabledEntry = { kind: 'enabled', at, by: 'user:alice', _id: { link: 1, position: 2 } };
    expect(calls).toEqual([
      { method: 'findOne', args: [{ _id: 1 }] },
      // Copied already: the server answers a duplicate key, which the change ignores.
      { method: 'link_history.insertOne', args: [disabledEntry(1)] },
      {
        method: 'findOneAndUpdate',
        args: [
          { _id: 1, domain: 'acme.link', alias: 'l1', revision: 1 },
          {
            $set: { ...fieldsOf(stored(1)), revision: 2, lastChange: enabledEntry },
            $unset: { disabled: '', visits: '' },
          },
          { returnDocument: 'after' },
        ],
      },
      { method: 'link_history.insertOne', args: [enabledEntry] },
    ]);
    expect(entries).toEqual([disabledEntry(1), enabledEntry]);
  });

  it('reads again and retries when another change came in between (the revision moved)', async () => {
    let interfered = false;
    const { store, calls, documents, entries } = fakeLinks([stored(1)], {
      beforeWrite: (held) => {
        if (interfered) return;
        interfered = true;
        // Another process's edit, written between this change's read and its write.
        Object.assign(held[0] as Stored, {
          url: 'https://other.example/',
          revision: 1,
          lastChange: {
            kind: 'updated',
            at,
            by: 'user:bob',
            changes: [{ field: 'url', from: newLink().url, to: 'https://other.example/' }],
            _id: { link: 1, position: 1 },
          },
        });
      },
    });
    const answer = outcome(await store.update(1, { redirectType: 302 }, member));
    expect(answer).toEqual({
      link: { ...recordOf(stored(1)), url: 'https://other.example/', redirectType: 302 },
      changed: true,
    });
    expect(calls.map((call) => call.method)).toEqual([
      'findOne',
      'findOneAndUpdate',
      'findOne',
      'link_history.insertOne',
      'findOneAndUpdate',
      'link_history.insertOne',
    ]);
    expect(calls[1]?.args[0]).toEqual({ _id: 1, domain: 'acme.link', alias: 'l1', revision: null });
    expect(calls[4]?.args[0]).toEqual({ _id: 1, domain: 'acme.link', alias: 'l1', revision: 1 });
    // The other change's entry is kept at 1, this one's at 2; the link has both changes.
    expect(entries.map((entry) => [entry._id.position, entry.by])).toEqual([
      [1, 'user:bob'],
      [2, 'user:alice'],
    ]);
    expect(documents[0]).toMatchObject({ url: 'https://other.example/', redirectType: 302 });
  });

  it('answers changed false without a write when the retry finds the state already reached', async () => {
    let interfered = false;
    const { store, calls } = fakeLinks([stored(1)], {
      beforeWrite: (held) => {
        if (interfered) return;
        interfered = true;
        Object.assign(held[0] as Stored, {
          disabled: { reason: 'first', at, by: 'admin' },
          revision: 1,
          lastChange: {
            kind: 'disabled',
            at,
            by: 'admin',
            reason: 'first',
            _id: { link: 1, position: 1 },
          },
        });
      },
    });
    const answer = await store.setDisabled(1, disabling, member);
    expect(answer).toEqual({
      link: { ...recordOf(stored(1)), disabled: { reason: 'first', at, by: 'admin' } },
      changed: false,
    });
    expect(calls.map((call) => call.method)).toEqual(['findOne', 'findOneAndUpdate', 'findOne']);
  });

  it('never sets visits: a count made between the read and the write is kept', async () => {
    let visited = false;
    const { store, calls, documents } = fakeLinks([stored(1, { maxVisits: 5, visits: 4 })], {
      beforeWrite: (held) => {
        if (visited) return;
        visited = true;
        (held[0] as Stored).visits = 5; // another process's takeVisit
      },
    });
    const answer = outcome(
      await store.update(1, { maxVisits: 10, url: 'https://n.example/' }, member),
    );
    expect(answer.link).toEqual({
      ...recordOf(stored(1)),
      url: 'https://n.example/',
      maxVisits: 10,
      visits: 5,
    });
    const [, write] = calls;
    const update = write?.args[1] as Record<string, Record<string, unknown>>;
    expect(update.$set).not.toHaveProperty('visits');
    // A limit kept: the count is only made to exist ($max), never overwritten.
    expect(update.$max).toEqual({ visits: 0 });
    expect(update).not.toHaveProperty('$inc');
    expect(documents[0]?.visits).toBe(5);
  });

  it('starts a new limit at 0 and unsets the count with the limit, never through $set', async () => {
    const { store, calls, documents } = fakeLinks([stored(1)]);
    await store.update(1, { maxVisits: 3 }, member);
    expect(documents[0]).toMatchObject({ maxVisits: 3, visits: 0 });
    await store.update(1, { maxVisits: null, expiresAt: new Date(at) }, member);
    expect(documents[0]).not.toHaveProperty('visits');
    expect(documents[0]).not.toHaveProperty('maxVisits');
    const writes = calls.filter((call) => call.method === 'findOneAndUpdate');
    for (const write of writes) {
      expect((write.args[1] as { $set: object }).$set).not.toHaveProperty('visits');
    }
    expect((writes[1]?.args[1] as { $unset: object }).$unset).toEqual({
      maxVisits: '',
      visits: '',
    });
  });

  it('answers held to a member’s change of a link the operator or a rescan disabled, with one read and no write', async () => {
    for (const by of ['admin', 'rescan']) {
      const { store, calls, documents } = fakeLinks([
        stored(1, { disabled: { reason: 'takedown', at, by } }),
      ]);
      await expect(store.setDisabled(1, null, member)).resolves.toBe('held');
      await expect(store.update(1, { url: 'https://x.example/' }, member)).resolves.toBe('held');
      expect(calls).toEqual([
        { method: 'findOne', args: [{ _id: 1 }] },
        { method: 'findOne', args: [{ _id: 1 }] },
      ]);
      expect(documents).toEqual([stored(1, { disabled: { reason: 'takedown', at, by } })]);
      // A legacy bare user id is a member's disable: not held.
      const legacy = fakeLinks([stored(1, { disabled: { reason: 'r', at, by: 'alice' } })]);
      await expect(legacy.store.setDisabled(1, null, member)).resolves.toMatchObject({
        changed: true,
      });
      await expect(store.setDisabled(1, null, admin)).resolves.toMatchObject({ changed: true });
    }
  });

  it('answers null for an unknown id and changed false for no change, each after one read', async () => {
    const { store, calls, documents } = fakeLinks([stored(1)]);
    await expect(store.setDisabled(9, disabling, member)).resolves.toBeNull();
    await expect(store.update(9, { url: 'https://x.example/' }, member)).resolves.toBeNull();
    await expect(store.setDisabled(1, null, member)).resolves.toEqual({
      link: recordOf(stored(1)),
      changed: false,
    });
    await expect(store.update(1, { url: newLink().url }, member)).resolves.toEqual({
      link: recordOf(stored(1)),
      changed: false,
    });
    expect(calls.map((call) => call.method)).toEqual(['findOne', 'findOne', 'findOne', 'findOne']);
    expect(documents).toEqual([stored(1)]);
  });

  it('answers the change made when its copy to link_history fails; the entry stays in lastChange and is copied by the next change', async () => {
    const { store, calls, entries } = fakeLinks([stored(1)], {
      fail: { 'link_history.insertOne': networkError() },
    });
    await expect(store.setDisabled(1, disabling, member)).resolves.toMatchObject({
      changed: true,
    });
    expect(entries).toEqual([]);
    // Read from lastChange meanwhile.
    await expect(store.history(1, { after: 0, limit: 10 })).resolves.toEqual([
      { position: 1, entry: { kind: 'disabled', at, by: 'user:alice', reason: disabling.reason } },
    ]);
    calls.length = 0;
    await store.setDisabled(1, null, member);
    expect(calls.map((call) => [call.method, (call.args[0] as { _id?: unknown })._id])).toEqual([
      ['findOne', 1],
      ['link_history.insertOne', { link: 1, position: 1 }],
      ['findOneAndUpdate', 1],
      ['link_history.insertOne', { link: 1, position: 2 }],
    ]);
    expect(entries.map((entry) => entry._id.position)).toEqual([1, 2]);
  });

  it('writes nothing when the last change cannot be copied first (it would be overwritten)', async () => {
    const { store, calls, documents } = fakeLinks([stored(1)]);
    await store.setDisabled(1, disabling, member);
    const before = structuredClone(documents);
    const failing = fakeLinks(before, { fail: { 'link_history.insertOne': networkError() } });
    await expect(failing.store.setDisabled(1, null, member)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
    expect(failing.calls.map((call) => call.method)).toEqual(['findOne', 'link_history.insertOne']);
    expect(failing.documents).toEqual(documents);
    expect(calls).toHaveLength(3);
  });

  it('reports an unreachable server as BackendUnavailableError, other errors unchanged', async () => {
    const unreachable = fakeLinks([stored(1)], { fail: { findOneAndUpdate: networkError() } });
    await expect(unreachable.store.setDisabled(1, disabling, member)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
    const refused = new MongoServerError({ code: 13, errmsg: 'not authorized on shortlink' });
    const denied = fakeLinks([stored(1)], { fail: { findOneAndUpdate: refused } });
    await expect(denied.store.setDisabled(1, disabling, member)).rejects.toBe(refused);
    const lookupLost = fakeLinks([stored(1)], { fail: { findOne: networkError() } });
    await expect(
      lookupLost.store.update(1, { url: 'https://x.example/' }, member),
    ).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

describe('MongoDB link store: takeVisit', () => {
  const counting = [
    {
      _id: 1,
      maxVisits: { $exists: true },
      $expr: { $lt: [{ $ifNull: ['$visits', 0] }, '$maxVisits'] },
    },
    { $inc: { visits: 1 } },
  ];

  it('counts with one updateOne conditional on the count being below the limit', async () => {
    const { store, calls, documents } = fakeLinks([stored(1, { maxVisits: 2, visits: 0 })]);
    await expect(store.takeVisit(1)).resolves.toBe('counted');
    expect(calls).toEqual([{ method: 'updateOne', args: counting }]);
    expect(documents[0]?.visits).toBe(1);
  });

  it('reads the limit when nothing matched: exhausted, counted without a limit (nothing written), null when unknown', async () => {
    const { store, calls, documents } = fakeLinks([
      stored(1, { maxVisits: 2, visits: 2 }),
      stored(2),
    ]);
    await expect(store.takeVisit(1)).resolves.toBe('exhausted');
    await expect(store.takeVisit(2)).resolves.toBe('counted');
    await expect(store.takeVisit(3)).resolves.toBeNull();
    const lookup = (id: number) => ({
      method: 'findOne',
      args: [{ _id: id }, { projection: { maxVisits: 1 } }],
    });
    expect(calls).toEqual([
      { method: 'updateOne', args: counting },
      lookup(1),
      { method: 'updateOne', args: [{ ...counting[0], _id: 2 }, counting[1]] },
      lookup(2),
      { method: 'updateOne', args: [{ ...counting[0], _id: 3 }, counting[1]] },
      lookup(3),
    ]);
    expect(documents).toEqual([stored(1, { maxVisits: 2, visits: 2 }), stored(2)]);
  });

  it('counts a link stored with a limit but no count from 0', async () => {
    const { store, documents } = fakeLinks([stored(1, { maxVisits: 1 })]);
    await expect(store.takeVisit(1)).resolves.toBe('counted');
    await expect(store.takeVisit(1)).resolves.toBe('exhausted');
    expect(documents[0]?.visits).toBe(1);
  });

  it('of 200 concurrent visits of a link limited to 50, counts exactly 50', async () => {
    const { store, documents } = fakeLinks([stored(1, { maxVisits: 50, visits: 0 })]);
    const answers = await Promise.all(Array.from({ length: 200 }, () => store.takeVisit(1)));
    expect(answers.filter((answer) => answer === 'counted')).toHaveLength(50);
    expect(answers.filter((answer) => answer === 'exhausted')).toHaveLength(150);
    expect(documents[0]?.visits).toBe(50);
  });

  it('reports an unreachable server as BackendUnavailableError', async () => {
    const { store } = fakeLinks([stored(1, { maxVisits: 1 })], {
      fail: { updateOne: networkError() },
    });
    await expect(store.takeVisit(1)).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});

describe('MongoDB link store: history', () => {
  const entry = (position: number, by = 'user:alice'): HistoryDocument => ({
    kind: 'enabled',
    at,
    by,
    _id: { link: 1, position },
  });
  const paged = (position: number, by = 'user:alice') => ({
    position,
    entry: { kind: 'enabled', at, by },
  });

  function withHistory(copied: number, last?: HistoryDocument) {
    const fake = fakeLinks([
      stored(1, { revision: last?._id.position ?? copied, lastChange: last ?? entry(copied) }),
    ]);
    for (let position = 1; position <= copied; position += 1) {
      fake.entries.push(entry(position));
    }
    fake.calls.length = 0;
    return fake;
  }

  it('reads the page from link_history by link and position, and the link’s lastChange', async () => {
    const { store, calls } = withHistory(3);
    await expect(store.history(1, { after: 1, limit: 5 })).resolves.toEqual([paged(2), paged(3)]);
    expect(calls).toEqual([
      {
        method: 'link_history.find',
        args: [
          { '_id.link': 1, '_id.position': { $gt: 1 } },
          { sort: { '_id.link': 1, '_id.position': 1 }, limit: 5 },
        ],
      },
      { method: 'findOne', args: [{ _id: 1 }, { projection: { lastChange: 1 } }] },
    ]);
  });

  it('adds the last change not yet copied, in its place, within the page', async () => {
    const { store } = withHistory(2, entry(3, 'admin'));
    await expect(store.history(1, { after: 0, limit: 10 })).resolves.toEqual([
      paged(1),
      paged(2),
      paged(3, 'admin'),
    ]);
    await expect(store.history(1, { after: 2, limit: 10 })).resolves.toEqual([paged(3, 'admin')]);
    await expect(store.history(1, { after: 1, limit: 1 })).resolves.toEqual([paged(2)]);
    await expect(store.history(1, { after: 0, limit: 2 })).resolves.toEqual([paged(1), paged(2)]);
    await expect(store.history(1, { after: 3, limit: 10 })).resolves.toEqual([]);
  });

  it('answers a copied last change once', async () => {
    const { store } = withHistory(2);
    await expect(store.history(1, { after: 0, limit: 10 })).resolves.toEqual([paged(1), paged(2)]);
  });

  it('answers nothing for a link without changes or an unknown id, and sends nothing for a limit below 1', async () => {
    const { store, calls } = fakeLinks([stored(1)]);
    await expect(store.history(1, { after: 0, limit: 10 })).resolves.toEqual([]);
    await expect(store.history(9, { after: 0, limit: 10 })).resolves.toEqual([]);
    calls.length = 0;
    await expect(store.history(1, { after: 0, limit: 0 })).resolves.toEqual([]);
    expect(calls).toEqual([]);
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
        // A new database: no collection has an index yet.
        listIndexes: () => ({ toArray: () => Promise.resolve([]) }),
      }),
    } as unknown as Db;
    await ensureIndexes(db);
    expect(created).toContainEqual({
      collection: 'links',
      key: { organizationId: 1, createdAt: -1, _id: -1 },
      options: { name: 'organization_created_newest_first', unique: false },
    });
    expect(created).toContainEqual({
      collection: 'links',
      key: { organizationId: 1, groupApiId: 1, createdAt: -1, _id: -1 },
      options: { name: 'organization_group_created_newest_first', unique: false },
    });
    // links.history filters on _id.link and _id.position and sorts on both: the _id index (on
    // the whole {link, position}) serves neither, so this one does.
    expect(created).toContainEqual({
      collection: 'link_history',
      key: { '_id.link': 1, '_id.position': 1 },
      options: { name: 'link_position', unique: false },
    });
    expect(created).toHaveLength(Object.keys(INDEXES).length);
  });
});
