import { EventEmitter } from 'node:events';
import { MongoNetworkError, MongoServerError, Timestamp, type Collection, type Db } from 'mongodb';
import { createMemoryStore } from '../../core';
import { watchIdentityChanges } from '../../core/adapters/mongodb/identity-change-stream';
import { watchLinkChanges } from '../../core/adapters/mongodb/link-change-stream';
import { countingStore } from '../support/counting-store';

/**
 * A change stream as the driver's emits in emitter mode: 'change', 'resumeTokenChanged', 'error'
 * and 'close' events, `closed`, and close().
 */
export class FakeStream extends EventEmitter {
  closed = false;
  closeCalls = 0;

  close(): Promise<void> {
    this.closeCalls += 1;
    this.closed = true;
    return Promise.resolve();
  }

  /** The server ended the cursor without an error (e.g. killed by an operator). */
  endSilently(): void {
    this.closed = true;
    this.emit('close');
  }
}

export interface Opened {
  pipeline: unknown;
  options: Record<string, unknown>;
  stream: FakeStream;
}

/** The n-th operation time the fake server answers (`ping`'s operationTime). */
export const opTime = (n: number) => new Timestamp({ t: 1_800_000_000, i: n });

/**
 * Something with watch() (a Db or a Collection) handing out fake streams and recording the
 * pipeline and options each was opened with; and the server's operation time, read before a
 * stream from now (counted; the n-th read answers opTime(n), or what `nextTimes` holds).
 */
export function fakeWatchable() {
  const opened: Opened[] = [];
  let timeReads = 0;
  /** Answers of the next operation-time reads, in order, before the default ones. */
  const nextTimes: Array<Timestamp | undefined | Error> = [];
  const operationTime = (): Promise<Timestamp | undefined> => {
    timeReads += 1;
    if (nextTimes.length > 0) {
      const next = nextTimes.shift();
      return next instanceof Error ? Promise.reject(next) : Promise.resolve(next);
    }
    return Promise.resolve(opTime(timeReads));
  };
  const watchable = {
    watch: (pipeline: unknown, options: Record<string, unknown>) => {
      const stream = new FakeStream();
      opened.push({ pipeline, options, stream });
      return stream;
    },
  };
  return {
    db: watchable as unknown as Pick<Db, 'watch'>,
    collection: watchable as unknown as Pick<Collection, 'watch'>,
    opened,
    operationTime,
    nextTimes,
    timeReads: () => timeReads,
    /** Resolves once `count` streams were opened (a stream from now opens after a time read). */
    openedCount: (count: number) => waitFor(() => opened.length >= count),
    /** The stream opened last. */
    latest: () => {
      const last = opened.at(-1);
      if (!last) throw new Error('no stream opened');
      return last.stream;
    },
  };
}

export function serverError(code: number, message: string): MongoServerError {
  return new MongoServerError({ message, code, ok: 0 });
}

export const networkError = () => new MongoNetworkError('connection 4 to 10.0.0.5:27017 closed');

/** A resume token as servers make them (opaque to the client). */
export const token = (n: number) => ({ _data: `8263A1F0${n.toString(16).padStart(4, '0')}` });

/** Resolves once `condition` holds; fails after `ms`. */
export async function waitFor(condition: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
}

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A call-counting memory store standing for the database, offering the link and identity change
 * watchers the MongoDB store offers, on fake driver streams: what the caches are wired over.
 */
export function storeWithFakeStreams() {
  const links = fakeWatchable();
  const identities = fakeWatchable();
  const backend = countingStore(createMemoryStore());
  backend.watchLinkChanges = (listener) =>
    watchLinkChanges(links.collection, listener, { operationTime: links.operationTime });
  backend.watchIdentityChanges = (listener) =>
    watchIdentityChanges(identities.db, listener, { operationTime: identities.operationTime });
  return { links, identities, backend };
}
