import type { Collection } from 'mongodb';
import type { IdSequence } from '../../ports/id-sequence';
import { onMongo, upsertRacing } from './backend-errors';
import type { CounterDocument } from './documents';

const LINK_IDS = 'link_id';

/**
 * Ids from one counter document: `$inc` with upsert is atomic on the server, so concurrent
 * callers (in any number of processes) each get a distinct, increasing value starting at 1.
 */
export class MongoIdSequence implements IdSequence {
  constructor(private readonly counters: Collection<CounterDocument>) {}

  async next(): Promise<number> {
    const counter = await onMongo('id allocation', () =>
      upsertRacing(() =>
        this.counters.findOneAndUpdate(
          { _id: LINK_IDS },
          { $inc: { seq: 1 } },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
    );
    if (!counter) throw new Error('the id counter update returned no document');
    return counter.seq;
  }
}
