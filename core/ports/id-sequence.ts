/** Deployment-wide, increasing integer ids starting at 1. */
export interface IdSequence {
  next(): Promise<number>;
}
