/**
 * Reserves `count` consecutive ids in one atomic step and answers the last of them (the counter's
 * new value): the range is `last - count + 1 ... last`.
 */
type ReserveIds = (count: number) => Promise<number>;

/** Ids a process reserves with one counter update unless ID_BLOCK_SIZE says otherwise. */
export const DEFAULT_ID_BLOCK_SIZE = 1000;
/**
 * The largest ID_BLOCK_SIZE: a stopped process loses the rest of its blocks, and ids must stay
 * far below 2^53 (JavaScript numbers) for as long as the deployment lives.
 */
export const MAX_ID_BLOCK_SIZE = 1_000_000;
/** The next block is fetched once this share of the current one is left. */
const LOW_WATER_SHARE = 0.1;

interface Waiter {
  resolve(id: number): void;
  reject(error: unknown): void;
}

/** The ids of a block not yet handed out: `next` to `last`; empty when `next > last`. */
interface Range {
  next: number;
  last: number;
}

/**
 * Hands out ids from blocks reserved on a shared counter (hi/lo): one counter update reserves a
 * block of `blockSize` ids, which this process then spends without asking the counter. Once a
 * tenth of the block is left, the next block is fetched (one fetch in flight at a time), so a
 * steady stream of requests never waits for it. Requests arriving while no id is in hand wait and
 * share one fetch, which reserves as many whole blocks as they need.
 *
 * Ids are unique across every process on the counter (each `$inc` is atomic) and increase in the
 * order this allocator hands them out (a process's blocks come one after the other, each above
 * the last, and are spent in order, waiting requests first). Ids of several processes interleave,
 * and the ids of a block not spent when its process stops are never used: at most the rest of
 * the current block and the block fetched ahead.
 *
 * A failed fetch rejects the requests waiting for it with its error; the next request fetches
 * again. A fetch ahead that fails rejects nothing (the block in hand still serves) and is tried
 * again by the next request.
 */
export class BlockIdAllocator {
  private current: Range = { next: 1, last: 0 };
  /** The block fetched ahead, spent once `current` is. */
  private spare: Range | undefined;
  private fetching = false;
  private waiting: Waiter[] = [];
  private readonly lowWater: number;

  constructor(
    private readonly reserve: ReserveIds,
    readonly blockSize: number = DEFAULT_ID_BLOCK_SIZE,
  ) {
    if (!Number.isSafeInteger(blockSize) || blockSize < 1 || blockSize > MAX_ID_BLOCK_SIZE) {
      throw new RangeError(
        `the id block size must be a whole number from 1 to ${MAX_ID_BLOCK_SIZE}, not ${blockSize}`,
      );
    }
    this.lowWater = Math.floor(blockSize * LOW_WATER_SHARE);
  }

  next(): Promise<number> {
    if (this.waiting.length === 0) {
      const id = this.takeInHand();
      if (id !== undefined) {
        this.fetchAheadIfLow();
        return Promise.resolve(id);
      }
    }
    return new Promise<number>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.fetch();
    });
  }

  /** Ids in hand (the current block's rest and the block fetched ahead): none means a wait. */
  get available(): number {
    return size(this.current) + (this.spare ? size(this.spare) : 0);
  }

  /** The next id of the current block, or of the spare once the current one is spent. */
  private takeInHand(): number | undefined {
    if (size(this.current) === 0 && this.spare) {
      this.current = this.spare;
      this.spare = undefined;
    }
    if (size(this.current) === 0) return undefined;
    const id = this.current.next;
    this.current.next += 1;
    return id;
  }

  private fetchAheadIfLow(): void {
    if (size(this.current) <= this.lowWater && !this.spare) this.fetch();
  }

  /** One counter update at a time: whole blocks, as many as the waiting requests need. */
  private fetch(): void {
    if (this.fetching) return;
    this.fetching = true;
    const count = this.blockSize * Math.max(1, Math.ceil(this.waiting.length / this.blockSize));
    let reserving: Promise<number>;
    try {
      reserving = this.reserve(count);
    } catch (error) {
      // A reserve that throws before it returns a promise is a failed fetch too.
      reserving = Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    void reserving.then(
      (last) => this.arrived({ next: last - count + 1, last }),
      (error: unknown) => this.failed(error),
    );
  }

  private arrived(block: Range): void {
    this.fetching = false;
    if (size(this.current) === 0) this.current = block;
    else this.spare = block;
    let served = 0;
    for (const waiter of this.waiting) {
      const id = this.takeInHand();
      if (id === undefined) break;
      waiter.resolve(id);
      served += 1;
    }
    this.waiting = this.waiting.slice(served);
    // Requests the block could not serve wait for the next fetch, in their order.
    if (this.waiting.length > 0) this.fetch();
    else this.fetchAheadIfLow();
  }

  private failed(error: unknown): void {
    this.fetching = false;
    const waiting = this.waiting;
    this.waiting = [];
    for (const waiter of waiting) waiter.reject(error);
  }
}

function size(range: Range): number {
  return Math.max(0, range.last - range.next + 1);
}
