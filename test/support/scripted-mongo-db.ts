import type { Db } from 'mongodb';

/** One driver call a test's fake Db received. */
export interface DriverCall {
  collection: string;
  method: string;
  args: unknown[];
}

/**
 * A fake MongoDB Db whose collections answer every method with `answer(call)`, recording each call
 * in order: for a test that scripts what the server says to a few calls and checks exactly what
 * the code sent. It is no MongoDB (see fake-mongo-db.ts for one that keeps documents, and
 * test/storage's contract suite for a real server).
 */
export function scriptedDb(answer: (call: DriverCall) => Promise<unknown>): {
  db: Db;
  calls: DriverCall[];
} {
  const calls: DriverCall[] = [];
  const collection = (name: string) =>
    new Proxy(
      {},
      {
        get:
          (_target, method) =>
          (...args: unknown[]) => {
            const call = { collection: name, method: String(method), args };
            calls.push(call);
            return answer(call);
          },
      },
    );
  return { db: { collection } as unknown as Db, calls };
}
