import { MongoBulkWriteError } from 'mongodb';
import type { VisitDocument } from '../../core/adapters/mongodb/documents';
import { MongoVisitStore } from '../../core/adapters/mongodb/mongo-visit-store';
import { scriptedDb, type DriverCall } from '../support/scripted-mongo-db';

/**
 * The MongoDB visit store's writes, on a fake Db that records the driver calls (no MongoDB: what
 * is sent, and how a repeated batch's duplicate mark is read).
 */
function storeAnswering(answer: (call: DriverCall) => Promise<unknown>) {
  const { db, calls } = scriptedDb(answer);
  const store = new MongoVisitStore(db.collection<VisitDocument>('link_visits'));
  return { store, calls };
}

/** What the driver throws when an ordered bulkWrite's first operation hit a duplicate key. */
function duplicateMark(): MongoBulkWriteError {
  const writeErrors = [{ index: 0, code: 11000, errmsg: 'E11000 duplicate key' }];
  return new MongoBulkWriteError(
    {
      message: 'E11000 duplicate key',
      code: 11000,
      writeErrors,
    } as unknown as ConstructorParameters<typeof MongoBulkWriteError>[0],
    {} as ConstructorParameters<typeof MongoBulkWriteError>[1],
  );
}

const BATCH = {
  process: 'p1',
  seq: 4,
  counts: [
    { linkId: 1, day: 20_000, humans: 2, bots: 1 },
    { linkId: 1, day: 20_001, humans: 1, bots: 0 },
    { linkId: 9, day: 20_001, humans: 0, bots: 3 },
  ],
};

describe('MongoDB visit store', () => {
  it('sends one ordered bulkWrite: the mark first, then $inc upserts of each day and total', async () => {
    const { store, calls } = storeAnswering(() => Promise.resolve({}));
    await expect(store.add(BATCH)).resolves.toBe('added');
    expect(calls).toHaveLength(1);
    const [operations, options] = calls[0]?.args as [unknown[], unknown];
    expect(options).toEqual({ ordered: true });
    const inc = (_id: object, humans: number, bots: number) => ({
      updateOne: { filter: { _id }, update: { $inc: { humans, bots } }, upsert: true },
    });
    expect(operations).toEqual([
      { insertOne: { document: { _id: { process: 'p1', seq: 4 }, markedAt: expect.any(Date) } } },
      inc({ link: 1, day: 20_000 }, 2, 1),
      inc({ link: 1, day: 20_001 }, 1, 0),
      inc({ link: 9, day: 20_001 }, 0, 3),
      inc({ link: 1 }, 3, 1),
      inc({ link: 9 }, 0, 3),
    ]);
  });

  it('answers repeated when the mark is already there, and fails on any other error', async () => {
    const repeated = storeAnswering(() => Promise.reject(duplicateMark()));
    await expect(repeated.store.add(BATCH)).resolves.toBe('repeated');
    const failing = storeAnswering(() => Promise.reject(new Error('socket closed')));
    await expect(failing.store.add(BATCH)).rejects.toThrow('socket closed');
  });

  it('reads one link’s days as one range of _id, and totals by {link}', async () => {
    // find() answers a cursor at once, not a promise.
    const cursor = {
      sort: () => ({
        toArray: () => Promise.resolve([{ _id: { link: 1, day: 20_000 }, humans: 2 }]),
      }),
      toArray: () => Promise.resolve([{ _id: { link: 1 }, humans: 5, bots: 1 }]),
    };
    const { store, calls } = storeAnswering(() => cursor as unknown as Promise<unknown>);
    await expect(store.read(1, 20_000, 20_010)).resolves.toEqual([
      { linkId: 1, day: 20_000, humans: 2, bots: 0 },
    ]);
    expect(calls[0]?.args[0]).toEqual({
      _id: { $gte: { link: 1, day: 20_000 }, $lte: { link: 1, day: 20_010 } },
    });
    await expect(store.totals([1, 2])).resolves.toEqual(
      new Map([
        [1, { humans: 5, bots: 1 }],
        [2, { humans: 0, bots: 0 }],
      ]),
    );
    expect(calls[1]?.args[0]).toEqual({ _id: { $in: [{ link: 1 }, { link: 2 }] } });
  });
});
