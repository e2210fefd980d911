import fc from 'fast-check';
import { MongoNetworkError, type Collection } from 'mongodb';
import { BackendUnavailableError } from '../../core';
import { toShortlinkError } from '../../core/errors/shortlink-error';
import {
  DEFAULT_ID_BLOCK_SIZE,
  MAX_ID_BLOCK_SIZE,
} from '../../core/adapters/mongodb/block-id-allocator';
import type {
  CounterDocument,
  HistoryDocument,
  LinkDocument,
} from '../../core/adapters/mongodb/documents';
import { checkIdCounter, IdCounterBehindError } from '../../core/adapters/mongodb/id-counter-check';
import { LINK_ID_COUNTER, MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';
import { MongoLinkStore } from '../../core/adapters/mongodb/mongo-link-store';
import { newLink } from '../storage/fixtures';

/** Lets `turns` rounds of the event loop pass: delays without wall-clock time. */
async function pause(turns: number): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * One counter document shared by several processes' sequences, as the server holds it: the
 * `$inc` is applied atomically after a delay (the request travelling), the answer comes back
 * after another (the reply travelling). Only the operation MongoIdSequence uses is faked; every
 * call is recorded, and how many each process (each `collection()`) has in flight at once.
 */
class FakeCounters {
  seq = 0;
  readonly calls: unknown[][] = [];
  readonly incs: number[] = [];
  mostInFlight = 0;
  /** The next calls' failures: thrown before the update applies. */
  readonly failNext: Error[] = [];

  constructor(private readonly delays: () => [number, number] = () => [1, 1]) {}

  collection(): Collection<CounterDocument> {
    let inFlight = 0;
    const fake = {
      findOneAndUpdate: async (...args: unknown[]) => {
        const [filter, update, options] = args as [
          { _id: string },
          { $inc: { seq: number } },
          Record<string, unknown>,
        ];
        expect(filter).toEqual({ _id: LINK_ID_COUNTER });
        expect(options).toEqual({ upsert: true, returnDocument: 'after' });
        this.calls.push(args);
        inFlight += 1;
        this.mostInFlight = Math.max(this.mostInFlight, inFlight);
        try {
          const [there, back] = this.delays();
          await pause(there);
          const failure = this.failNext.shift();
          if (failure) throw failure;
          this.seq += update.$inc.seq;
          this.incs.push(update.$inc.seq);
          const answer = { _id: LINK_ID_COUNTER, seq: this.seq };
          await pause(back);
          return answer;
        } finally {
          inFlight -= 1;
        }
      },
    };
    return fake as unknown as Collection<CounterDocument>;
  }
}

function delaysFrom(values: number[]): () => [number, number] {
  let i = 0;
  const take = () => values[i++ % values.length]!;
  return () => [take(), take()];
}

describe('link ids in blocks over one MongoDB counter document (hi/lo)', () => {
  it('reserves a block with one $inc and hands it out without the counter, fetching the next one ahead', async () => {
    const counters = new FakeCounters();
    const sequence = new MongoIdSequence(counters.collection(), 100);
    const ids: number[] = [];
    for (let i = 0; i < 89; i += 1) ids.push(await sequence.next());
    expect(ids).toEqual(Array.from({ length: 89 }, (_, i) => i + 1));
    expect(counters.calls).toEqual([
      [{ _id: LINK_ID_COUNTER }, { $inc: { seq: 100 } }, { upsert: true, returnDocument: 'after' }],
    ]);
    // The 90th leaves 10 of 100 (the low-water mark): the next block is fetched ahead.
    ids.push(await sequence.next());
    expect(counters.calls).toHaveLength(2);
    await pause(5);
    expect(sequence.available).toBe(110);
    for (let i = 0; i < 110; i += 1) ids.push(await sequence.next());
    expect(ids).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
    // The second block's own low-water mark (id 190) was passed on the way: a third fetch.
    expect(counters.calls).toHaveLength(3);
    await pause(5);
    expect(counters.incs).toEqual([100, 100, 100]);
  });

  it('hands out unique ids, increasing in each process, in whole blocks with one fetch in flight', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 6 }),
        fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 }), {
          minLength: 2,
          maxLength: 4,
        }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 20 }),
        async (processes, blockSize, waves, delays) => {
          const counters = new FakeCounters(delaysFrom(delays));
          const sequences = Array.from(
            { length: processes },
            () => new MongoIdSequence(counters.collection(), blockSize),
          );
          // Each process's ids in the order its requests were made.
          const handedOut: Array<Array<Promise<number>>> = sequences.map(() => []);
          // Each wave: every process gets a burst of requests, each started after its own small
          // delay, so bursts overlap fetches in flight (and fetches ahead) in varied ways.
          const requests: Array<Promise<unknown>> = [];
          waves.forEach((starts, wave) => {
            sequences.forEach((sequence, p) => {
              for (const start of starts) {
                requests.push(pause(start + wave).then(() => handedOut[p]!.push(sequence.next())));
              }
            });
          });
          await Promise.all(requests);
          const ids = await Promise.all(handedOut.map((mine) => Promise.all(mine)));

          const all = ids.flat();
          const total = waves.reduce((sum, starts) => sum + starts.length, 0) * processes;
          expect(all).toHaveLength(total);
          expect(new Set(all).size).toBe(total);
          expect(Math.max(...all)).toBeLessThanOrEqual(counters.seq);
          for (const mine of ids) {
            for (let i = 1; i < mine.length; i += 1) expect(mine[i]!).toBeGreaterThan(mine[i - 1]!);
          }
          for (const inc of counters.incs) expect(inc % blockSize).toBe(0);
          expect(counters.mostInFlight).toBe(1);
          // Unused at the end, per process: at most the current block's rest and the spare.
          expect(counters.seq - total).toBeLessThanOrEqual(processes * 2 * blockSize);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('keeps a steady stream of requests from ever waiting after the first block', async () => {
    const counters = new FakeCounters(() => [2, 2]);
    const sequence = new MongoIdSequence(counters.collection(), 100);
    let waited = 0;
    const ids: number[] = [];
    for (let i = 0; i < 1000; i += 1) {
      if (sequence.available === 0) waited += 1;
      ids.push(await sequence.next());
      await pause(1);
    }
    expect(waited).toBe(1);
    expect(ids).toEqual(Array.from({ length: 1000 }, (_, i) => i + 1));
    // Ten blocks, and the eleventh fetched ahead at id 990.
    expect(counters.calls).toHaveLength(11);
  });

  it('lets the requests that find no id in hand share one fetch, of as many blocks as they need', async () => {
    const counters = new FakeCounters(() => [2, 2]);
    const sequence = new MongoIdSequence(counters.collection(), 10);
    const ids = await Promise.all(Array.from({ length: 35 }, () => sequence.next()));
    expect(ids).toEqual(Array.from({ length: 35 }, (_, i) => i + 1));
    // The first request's fetch (one block), then one fetch for the 25 still waiting.
    expect(counters.incs).toEqual([10, 30]);
    expect(counters.mostInFlight).toBe(1);
  });

  it('fails the requests waiting for a failed fetch as the store does (code 23), and the next request fetches again', async () => {
    const counters = new FakeCounters();
    const links = new MongoLinkStore(
      { insertOne: () => Promise.resolve({}) } as unknown as Collection<LinkDocument>,
      new MongoIdSequence(counters.collection(), 100),
      {} as unknown as Collection<HistoryDocument>,
    );
    counters.failNext.push(new MongoNetworkError('connection 3 to 10.0.0.5:27017 closed'));
    const failed = await Promise.allSettled([1, 2, 3].map(() => links.insert(newLink())));
    for (const outcome of failed) {
      expect(outcome).toMatchObject({ status: 'rejected' });
      const { reason } = outcome as PromiseRejectedResult;
      // What the core answers as 503, code 23, with Retry-After.
      expect(reason).toBeInstanceOf(BackendUnavailableError);
      expect(toShortlinkError(reason).reason).toBe('BACKEND_UNAVAILABLE');
    }
    await expect(links.insert(newLink())).resolves.toMatchObject({ id: 1 });
    expect(counters.calls).toHaveLength(2);
  });

  it('fails no request when a fetch ahead fails, and tries it again with the next request', async () => {
    const counters = new FakeCounters();
    const sequence = new MongoIdSequence(counters.collection(), 10);
    for (let i = 1; i <= 8; i += 1) await expect(sequence.next()).resolves.toBe(i);
    counters.failNext.push(new MongoNetworkError('connection reset'));
    // The 9th leaves 1 of 10: the fetch ahead goes out, and fails.
    await expect(sequence.next()).resolves.toBe(9);
    await pause(5);
    expect(counters.calls).toHaveLength(2);
    expect(sequence.available).toBe(1);
    await expect(sequence.next()).resolves.toBe(10);
    expect(counters.calls).toHaveLength(3);
    await expect(sequence.next()).resolves.toBe(11);
  });

  it('after a restart, continues above every id handed out before, skipping what the stopped process held', async () => {
    const counters = new FakeCounters();
    const before = new MongoIdSequence(counters.collection(), 100);
    let last = 0;
    for (let i = 0; i < 95; i += 1) last = await before.next();
    await pause(5);
    // Stopped here holding ids 96 to 200 (the rest of its block and the block fetched ahead).
    expect(before.available).toBe(105);
    const after = new MongoIdSequence(counters.collection(), 100);
    const next = await after.next();
    expect(next).toBe(201);
    expect(next - last - 1).toBeLessThanOrEqual(105);
  });

  it('refuses a block size outside 1 to MAX_ID_BLOCK_SIZE', () => {
    const collection = new FakeCounters().collection();
    for (const size of [0, -1, 1.5, MAX_ID_BLOCK_SIZE + 1, Number.NaN]) {
      expect(() => new MongoIdSequence(collection, size)).toThrow(RangeError);
    }
    expect(new MongoIdSequence(collection, MAX_ID_BLOCK_SIZE)).toBeDefined();
    expect(DEFAULT_ID_BLOCK_SIZE).toBe(1000);
  });
});

/** A collection answering findOne with a fixed document, recording what was asked. */
function answering<T>(document: T | null, asked: unknown[][]): Pick<Collection<never>, 'findOne'> {
  return {
    findOne: (...args: unknown[]) => {
      asked.push(args);
      return Promise.resolve(document);
    },
  } as unknown as Pick<Collection<never>, 'findOne'>;
}

describe('start-up check of the id counter against the links', () => {
  const links = (highest: number | null, asked: unknown[][] = []) =>
    answering<Pick<LinkDocument, '_id'>>(highest === null ? null : { _id: highest }, asked);
  const counters = (seq: number | null) =>
    answering<CounterDocument>(seq === null ? null : { _id: LINK_ID_COUNTER, seq }, []);

  it('passes on an empty database and when the counter is at or past the largest id', async () => {
    await expect(checkIdCounter(links(null), counters(null))).resolves.toBeUndefined();
    await expect(checkIdCounter(links(41), counters(41))).resolves.toBeUndefined();
    await expect(checkIdCounter(links(41), counters(90))).resolves.toBeUndefined();
  });

  it('asks for the largest link id only', async () => {
    const asked: unknown[][] = [];
    await checkIdCounter(links(3, asked), counters(3));
    expect(asked).toEqual([[{}, { sort: { _id: -1 }, projection: { _id: 1 } }]]);
  });

  it('refuses a counter behind the links with a message saying how to fix it', async () => {
    const check = checkIdCounter(links(1200), counters(1000));
    await expect(check).rejects.toBeInstanceOf(IdCounterBehindError);
    await expect(check).rejects.toThrow(/seq 1000\) is behind the largest link id \(1200\)/);
    await expect(check).rejects.toThrow(/\$max: \{seq: 1200\}/);
  });

  it('refuses links without a counter (a counter lost or never restored)', async () => {
    await expect(checkIdCounter(links(7), counters(null))).rejects.toThrow(/seq 0\) is behind/);
  });

  it('passes while another process takes a block and inserts during the check (a rolling deploy)', async () => {
    // The other process: $inc the counter to 2000, then insert link 1500 from that block. The
    // links read is answered after it did; the counter is read whenever it is asked.
    const db = { seq: 1000, largestId: 1000 };
    const linksRead = {
      findOne: async () => {
        await pause(2);
        db.seq = 2000;
        db.largestId = 1500;
        return { _id: db.largestId };
      },
    } as unknown as Pick<Collection<LinkDocument>, 'findOne'>;
    const counterRead = {
      findOne: () => Promise.resolve({ _id: LINK_ID_COUNTER, seq: db.seq }),
    } as unknown as Pick<Collection<CounterDocument>, 'findOne'>;
    await expect(checkIdCounter(linksRead, counterRead)).resolves.toBeUndefined();
  });

  it('reports an unreachable database as BackendUnavailableError', async () => {
    const down = {
      findOne: () => Promise.reject(new MongoNetworkError('connection refused')),
    } as unknown as Pick<Collection<never>, 'findOne'>;
    await expect(checkIdCounter(down, counters(0))).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});
