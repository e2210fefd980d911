import fc from 'fast-check';
import { MongoNetworkError, type Collection } from 'mongodb';
import { BackendUnavailableError } from '../../core';
import type { CounterDocument, LinkDocument } from '../../core/adapters/mongodb/documents';
import { checkIdCounter, IdCounterBehindError } from '../../core/adapters/mongodb/id-counter-check';
import { LINK_ID_COUNTER, MongoIdSequence } from '../../core/adapters/mongodb/mongo-id-sequence';

/** Lets `turns` rounds of the event loop pass: delays without wall-clock time. */
async function pause(turns: number): Promise<void> {
  for (let i = 0; i < turns; i += 1) await new Promise((resolve) => setImmediate(resolve));
}

/**
 * One counter document shared by several processes' sequences, as the server holds it: the
 * `$inc` is applied atomically after a random delay (the request travelling), the answer comes
 * back after another (the reply travelling). Only the operation MongoIdSequence uses is faked.
 */
class FakeCounters {
  seq = 0;
  calls = 0;
  incs: number[] = [];

  constructor(private readonly delays: () => [number, number]) {}

  collection(): Collection<CounterDocument> {
    const fake = {
      findOneAndUpdate: async (
        filter: { _id: string },
        update: { $inc: { seq: number } },
        options: { upsert: boolean; returnDocument: string },
      ) => {
        expect(filter).toEqual({ _id: LINK_ID_COUNTER });
        expect(options).toMatchObject({ upsert: true, returnDocument: 'after' });
        this.calls += 1;
        const [there, back] = this.delays();
        await pause(there);
        this.seq += update.$inc.seq;
        this.incs.push(update.$inc.seq);
        const answer = { _id: LINK_ID_COUNTER, seq: this.seq };
        await pause(back);
        return answer;
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

describe('batched link ids over one MongoDB counter document', () => {
  it('hands out unique ids, increasing in each process, with fewer counter calls than ids', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 2, max: 4 }),
        fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 12 }), {
          minLength: 2,
          maxLength: 4,
        }),
        fc.array(fc.integer({ min: 0, max: 4 }), { minLength: 1, maxLength: 20 }),
        async (processes, waves, delays) => {
          const counters = new FakeCounters(delaysFrom(delays));
          const sequences = Array.from(
            { length: processes },
            () => new MongoIdSequence(counters.collection()),
          );
          const handedOut: number[][] = sequences.map(() => []);
          // Each wave: every process gets a burst of concurrent requests, each request started
          // after its own small delay, so bursts overlap in-flight updates in varied ways.
          const requests: Array<Promise<void>> = [];
          waves.forEach((starts, wave) => {
            sequences.forEach((sequence, p) => {
              for (const start of starts) {
                requests.push(
                  pause(start + wave).then(async () => {
                    handedOut[p]!.push(await sequence.next());
                  }),
                );
              }
            });
          });
          await Promise.all(requests);

          const all = handedOut.flat();
          const total = waves.reduce((sum, starts) => sum + starts.length, 0) * processes;
          expect(all).toHaveLength(total);
          expect(new Set(all).size).toBe(total);
          // No gaps: every id reserved was handed out (nothing held back, nothing lost).
          expect(Math.max(...all)).toBe(counters.seq);
          expect(counters.incs.reduce((a, b) => a + b, 0)).toBe(total);
          for (const ids of handedOut) {
            for (let i = 1; i < ids.length; i += 1) expect(ids[i]!).toBeGreaterThan(ids[i - 1]!);
          }
          expect(counters.calls).toBeLessThanOrEqual(total);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('needs well under one counter call per id when requests arrive together', async () => {
    const counters = new FakeCounters(() => [2, 2]);
    const sequences = [1, 2, 3].map(() => new MongoIdSequence(counters.collection()));
    const ids = await Promise.all(
      sequences.flatMap((sequence) => Array.from({ length: 50 }, () => sequence.next())),
    );
    expect(new Set(ids).size).toBe(150);
    // Per process: one update for the first request, one shared by the 49 that came meanwhile.
    expect(counters.calls).toBe(6);
    expect(counters.calls / ids.length).toBeLessThan(1);
    expect([...counters.incs].sort((a, b) => a - b)).toEqual([1, 1, 1, 49, 49, 49]);
  });

  it('keeps at most one counter update in flight per process', async () => {
    let inFlight = 0;
    let most = 0;
    const fake = {
      findOneAndUpdate: async (_filter: unknown, update: { $inc: { seq: number } }) => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        await pause(3);
        inFlight -= 1;
        fake.seq += update.$inc.seq;
        return { _id: LINK_ID_COUNTER, seq: fake.seq };
      },
      seq: 0,
    };
    const sequence = new MongoIdSequence(fake as unknown as Collection<CounterDocument>);
    const ids: number[] = [];
    await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        pause(i % 7).then(async () => ids.push(await sequence.next())),
      ),
    );
    expect(most).toBe(1);
    expect(ids).toEqual(Array.from({ length: 40 }, (_, i) => i + 1));
  });

  it('fails every request of a failed update, and the next request tries again', async () => {
    let fail = true;
    let seq = 0;
    const fake = {
      findOneAndUpdate: async (_filter: unknown, update: { $inc: { seq: number } }) => {
        await pause(1);
        if (fail) throw new Error('boom');
        seq += update.$inc.seq;
        return { _id: LINK_ID_COUNTER, seq };
      },
    };
    const sequence = new MongoIdSequence(fake as unknown as Collection<CounterDocument>);
    const failed = await Promise.allSettled([sequence.next(), sequence.next(), sequence.next()]);
    expect(failed.every((outcome) => outcome.status === 'rejected')).toBe(true);
    fail = false;
    await expect(sequence.next()).resolves.toBe(1);
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

  it('reports an unreachable database as BackendUnavailableError', async () => {
    const down = {
      findOne: () => Promise.reject(new MongoNetworkError('connection refused')),
    } as unknown as Pick<Collection<never>, 'findOne'>;
    await expect(checkIdCounter(down, counters(0))).rejects.toBeInstanceOf(BackendUnavailableError);
  });
});
