import type { Collection } from 'mongodb';
import { onMongo, upsertRacing } from './backend-errors';
import { BlockIdAllocator, DEFAULT_ID_BLOCK_SIZE } from './block-id-allocator';
import type { CounterDocument } from './documents';

/** The `_id` of the counter document link ids come from. */
export const LINK_ID_COUNTER = 'link_id';

/**
 * Link ids (MongoLinkStore takes one per insert) from one counter document, in blocks: one
 * `$inc` of `blockSize` with upsert, atomic on the server and written with the client's write
 * concern (majority by default), reserves a block that this process then spends alone (see
 * BlockIdAllocator). Concurrent processes each get distinct blocks, the first starting at 1, so
 * the counter document is updated about once per block per process rather than once per link.
 */
export class MongoIdSequence {
  private readonly allocator: BlockIdAllocator;

  constructor(
    private readonly counters: Collection<CounterDocument>,
    blockSize: number = DEFAULT_ID_BLOCK_SIZE,
  ) {
    this.allocator = new BlockIdAllocator((count) => this.reserve(count), blockSize);
  }

  next(): Promise<number> {
    return this.allocator.next();
  }

  /** Ids this process holds reserved and not yet handed out. */
  get available(): number {
    return this.allocator.available;
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
