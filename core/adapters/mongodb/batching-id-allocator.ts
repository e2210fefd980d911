/**
 * Reserves `count` consecutive ids in one atomic step and answers the last of them (the counter's
 * new value): the range is `last - count + 1 ... last`.
 */
export type ReserveIds = (count: number) => Promise<number>;

interface Waiter {
  resolve(id: number): void;
  reject(error: unknown): void;
}

/**
 * Hands out ids from a shared counter with at most one counter update in flight per process.
 * The first caller reserves one id at once; callers arriving while that update is on its way wait
 * and then share the next update, which reserves exactly as many ids as they are (`$inc: k`), so
 * nothing is held back and nothing is lost when the process stops. Ids come out unique (the
 * counter is atomic) and increasing in the order this allocator hands them out (ranges are
 * reserved one after the other and split in arrival order).
 */
export class BatchingIdAllocator {
  private waiting: Waiter[] = [];
  private inFlight = false;

  constructor(private readonly reserve: ReserveIds) {}

  next(): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      if (!this.inFlight) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.inFlight = true;
    while (this.waiting.length > 0) {
      const batch = this.waiting;
      this.waiting = [];
      try {
        const last = await this.reserve(batch.length);
        const first = last - batch.length + 1;
        batch.forEach((waiter, index) => waiter.resolve(first + index));
      } catch (error) {
        // Every caller of a failed update learns of it; later callers get a fresh attempt.
        for (const waiter of batch) waiter.reject(error);
      }
    }
    this.inFlight = false;
  }
}
