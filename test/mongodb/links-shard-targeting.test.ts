import { MongoServerError, type Collection } from 'mongodb';
import type {
  CounterDocument,
  HistoryDocument,
  LinkDocument,
} from '../../core/adapters/mongodb/documents';
import { INDEXES } from '../../core/adapters/mongodb/indexes';
import { LINK_ID_COUNTER, MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { newLink } from '../storage/fixtures';

/**
 * A `links` collection that records every operation the store makes on it, with its filter or
 * document. Creating and following must only make targeted operations: every one names `domain`
 * and `alias` (the shard key), so on a cluster sharded on {domain: 1, alias: 1} each goes to one
 * shard. (The governing operations by id and the listings are not on that path; see the README.)
 */
function recordingLinks() {
  const operations: Array<{ method: string; argument: Record<string, unknown> }> = [];
  const stored: LinkDocument[] = [];
  const handlers: Record<string, (argument: Record<string, unknown>) => unknown> = {
    insertOne: (document) => {
      const doc = document as unknown as LinkDocument;
      if (stored.some((s) => s.domain === doc.domain && s.alias === doc.alias)) {
        throw new MongoServerError({
          message: `E11000 duplicate key error collection: shortlink.links index: ${INDEXES.linkAlias.name} dup key`,
          code: 11000,
          keyPattern: { domain: 1, alias: 1 },
        });
      }
      stored.push(doc);
      return { acknowledged: true, insertedId: doc._id };
    },
    findOne: (filter) =>
      stored.find((s) => s.domain === filter.domain && s.alias === filter.alias) ?? null,
  };
  const collection = new Proxy(
    {},
    {
      get(_target, method: string) {
        return (argument: Record<string, unknown>) => {
          operations.push({ method, argument });
          const handler = handlers[method];
          if (!handler) throw new Error(`unexpected links operation ${method}`);
          return Promise.resolve().then(() => handler(argument));
        };
      },
    },
  ) as unknown as Collection<LinkDocument>;
  return { collection, operations };
}

/** A `counters` collection with only the counter update the id sequence makes, counted. */
function countingCounters() {
  const updates: Array<{ filter: unknown; inc: number }> = [];
  let seq = 0;
  const collection = {
    findOneAndUpdate: (filter: unknown, update: { $inc: { seq: number } }) => {
      updates.push({ filter, inc: update.$inc.seq });
      seq += update.$inc.seq;
      return Promise.resolve({ _id: LINK_ID_COUNTER, seq });
    },
  } as unknown as Collection<CounterDocument>;
  return { collection, updates };
}

const link = (alias: string) => newLink({ alias, url: 'https://example.com/' });

describe('every links operation of creating and following carries the shard key', () => {
  it('inserts, duplicate inserts, hits and misses all name domain and alias', async () => {
    const { collection, operations } = recordingLinks();
    const counters = countingCounters();
    const store = new MongoLinkStore(
      collection,
      new MongoIdSequence(counters.collection),
      {} as unknown as Collection<HistoryDocument>,
    );
    expect(await store.insert(link('a'))).toEqual({ ...link('a'), id: 1 });
    expect(await store.insert(link('a'))).toBe('alias_taken');
    expect((await store.findByAlias('acme.link', 'a'))?.id).toBe(1);
    // Each insert took its id first, from the block the first one reserved (one counter update,
    // on an unsharded collection); the refused one used id 2.
    expect(counters.updates).toEqual([{ filter: { _id: LINK_ID_COUNTER }, inc: 1000 }]);
    expect(operations.filter((o) => o.method === 'insertOne').map((o) => o.argument._id)).toEqual([
      1, 2,
    ]);
    expect(await store.findByAlias('acme.link', 'missing')).toBeNull();
    expect(operations.map((operation) => operation.method)).toEqual([
      'insertOne',
      'insertOne',
      'findOne',
      'findOne',
    ]);
    for (const { argument } of operations) {
      expect(typeof argument.domain).toBe('string');
      expect(typeof argument.alias).toBe('string');
    }
    // The lookups ask by the shard key and nothing else, so they are exact single-shard reads.
    expect(operations.filter((o) => o.method === 'findOne').map((o) => o.argument)).toEqual([
      { domain: 'acme.link', alias: 'a' },
      { domain: 'acme.link', alias: 'missing' },
    ]);
  });

  it('a change of a link (setDisabled, update) writes with the shard key in its filter from the start', async () => {
    const document = { _id: 7, ...link('g') };
    const writes: Array<Record<string, unknown>> = [];
    const links = {
      findOne: () => Promise.resolve(structuredClone(document)),
      findOneAndUpdate: (filter: Record<string, unknown>) => {
        writes.push(filter);
        return Promise.resolve(structuredClone(document));
      },
    } as unknown as Collection<LinkDocument>;
    const history = {
      insertOne: () => Promise.resolve({ acknowledged: true }),
    } as unknown as Collection<HistoryDocument>;
    const store = new MongoLinkStore(
      links,
      new MongoIdSequence(countingCounters().collection),
      history,
    );
    const admin = { at: new Date(), by: 'admin', refuseHeld: false } as const;
    await store.setDisabled(7, { reason: 'r', at: admin.at, by: admin.by }, admin);
    await store.update(7, { url: 'https://changed.example/' }, admin);
    // No first attempt without it (a sharded cluster before 7.0 refuses a findAndModify so).
    expect(writes).toEqual([
      { _id: 7, domain: 'acme.link', alias: 'g', revision: null },
      { _id: 7, domain: 'acme.link', alias: 'g', revision: null },
    ]);
  });

  it('the unique index the store relies on starts with the shard key', () => {
    expect(Object.keys(INDEXES.linkAlias.key)).toEqual(['domain', 'alias']);
    expect(INDEXES.linkAlias.unique).toBe(true);
  });
});
