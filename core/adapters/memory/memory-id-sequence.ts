import type { IdSequence } from '../../ports/id-sequence';

export class MemoryIdSequence implements IdSequence {
  private last = 0;

  next(): Promise<number> {
    this.last += 1;
    return Promise.resolve(this.last);
  }
}
