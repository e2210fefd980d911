import type { Collection } from 'mongodb';
import type { CounterDocument, LinkDocument } from '../../core/adapters/mongodb/documents';
import { MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { scriptedDb, type DriverCall } from '../support/scripted-mongo-db';

/**
 * takeVisit on MongoDB: one conditional `$inc`, which the server applies atomically to the one
 * document, so max_visits holds across every process; a second read only when nothing matched,
 * to tell an exhausted link from a link without a limit or none. Checked with a fake Db that
 * records the driver calls and answers as the test scripts it: it is no MongoDB, and shows only
 * what is sent and how the answers are read (the real server run is test/storage's contract suite
 * with MONGODB_URI).
 */

/** A link store on a fake Db whose updateOne matches `matched` documents and findOne answers `found`. */
function storeAnswering(matched: 0 | 1, found: Partial<LinkDocument> | null) {
  const { db, calls } = scriptedDb((call: DriverCall) => {
    if (call.method === 'updateOne') {
      return Promise.resolve({ acknowledged: true, matchedCount: matched, modifiedCount: matched });
    }
    if (call.method === 'findOne') return Promise.resolve(found);
    return Promise.reject(new Error(`unexpected ${call.collection}.${call.method}`));
  });
  const store = new MongoLinkStore(
    db.collection<LinkDocument>('links'),
    new MongoIdSequence(db.collection('counters') as unknown as Collection<CounterDocument>),
    db.collection('linkHistory'),
  );
  const sent = () => calls.map((call) => [`${call.collection}.${call.method}`, ...call.args]);
  return { store, sent };
}

/** The one write of a visit: counted only while the stored visits are below the stored limit. */
const CONDITIONAL_INC = [
  'links.updateOne',
  {
    _id: 7,
    maxVisits: { $exists: true },
    $expr: { $lt: [{ $ifNull: ['$visits', 0] }, '$maxVisits'] },
  },
  { $inc: { visits: 1 } },
];

describe('MongoDB: takeVisit', () => {
  it('counts with the one conditional $inc when it matches, and reads nothing else', async () => {
    const { store, sent } = storeAnswering(1, null);
    await expect(store.takeVisit(7)).resolves.toBe('counted');
    expect(sent()).toEqual([CONDITIONAL_INC]);
  });

  it('answers exhausted when nothing matched and the link has a limit', async () => {
    const { store, sent } = storeAnswering(0, { maxVisits: 50 });
    await expect(store.takeVisit(7)).resolves.toBe('exhausted');
    expect(sent()).toEqual([
      CONDITIONAL_INC,
      ['links.findOne', { _id: 7 }, { projection: { maxVisits: 1 } }],
    ]);
  });

  it('answers counted, with no write, for a link without a limit', async () => {
    const { store } = storeAnswering(0, {});
    await expect(store.takeVisit(7)).resolves.toBe('counted');
  });

  it('answers null when no link has the id', async () => {
    const { store } = storeAnswering(0, null);
    await expect(store.takeVisit(7)).resolves.toBeNull();
  });
});
