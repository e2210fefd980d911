import type { Collection } from 'mongodb';
import { onMongo, upsertRacing } from './backend-errors';
import { BatchingIdAllocator } from './batching-id-allocator';
import type { CounterDocument } from './documents';

/** The `_id` of the counter document link ids come from. */
export const LINK_ID_COUNTER = 'link_id';

/**
 * Link ids (MongoLinkStore takes one per insert) from one counter document: `$inc` with upsert
 * is atomic on the server, so concurrent callers (in any number of processes) each get distinct
 * values starting at 1. Requests arriving while an update is in flight share the next one (see
 * BatchingIdAllocator), so a busy process sends far fewer than one counter update per link and
 * the counter document stays cool.
 */
export class MongoIdSequence {
  private readonly allocator: BatchingIdAllocator;

  constructor(private readonly counters: Collection<CounterDocument>) {
    this.allocator = new BatchingIdAllocator((count) => this.reserve(count));
  }

  next(): Promise<number> {
    return this.allocator.next();
  }

  private async reserve(count: number): Promise<number> {
    const counter = await onMongo('id allocation', () =>
      upsertRacing(() =>
        this.counters.findOneAndUpdate(
          { _id: LINK_ID_COUNTER },
          { $inc: { seq: count } },
          { upsert: true, returnDocument: 'after' },
        ),
      ),
    );
    if (!counter) throw new Error('the id counter update returned no document');
    return counter.seq;
  }
}
