import { MongoServerError, type Collection } from 'mongodb';
import type {
  CounterDocument,
  IdempotencyDocument,
  LinkDocument,
} from '../../core/adapters/mongodb/documents';
import { INDEXES } from '../../core/adapters/mongodb/indexes';
import { LINK_ID_COUNTER } from '../../core/adapters/mongodb/mongo-id-sequence';

/**
 * Fake `links`, `idempotency_keys` and `counters` collections for the keyed insert on MongoDB:
 * they record every call and answer as the server does for the filters and updates the store
 * sends (equality on fields and dotted paths, `$lte`, `$exists`; `$set`, `$max`; unique `_id`,
 * unique `{domain, alias}`). A call can be held before it runs (`holdNext`), to put a pause
 * exactly between two of a request's writes, or fail (`failNext`), before or after it applied.
 */
type Document = Record<string, unknown>;
type Filter = Record<string, unknown>;

export interface Call {
  method: string;
  args: unknown[];
}

function valueAt(document: Document, path: string): unknown {
  let value: unknown = document;
  for (const part of path.split('.')) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Document)[part];
  }
  return value;
}

function same(actual: unknown, wanted: unknown): boolean {
  if (actual instanceof Date && wanted instanceof Date)
    return actual.getTime() === wanted.getTime();
  return actual === wanted;
}

function matches(document: Document, filter: Filter): boolean {
  return Object.entries(filter).every(([path, wanted]) => {
    const actual = valueAt(document, path);
    if (typeof wanted === 'object' && wanted !== null && !isDate(wanted)) {
      if ('$lte' in wanted) return isDate(actual) && actual <= (wanted.$lte as Date);
      if ('$exists' in wanted) return (actual !== undefined) === wanted.$exists;
    }
    return same(actual, wanted);
  });
}

/**
 * A deep copy, as the driver's BSON round trip makes one. Not structuredClone: under jest its
 * dates come from another realm, which `instanceof Date` in the store would not recognise.
 */
function clone<T>(value: T): T {
  if (isDate(value)) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => clone(item)) as T;
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
}

function isDate(value: unknown): value is Date {
  return Object.prototype.toString.call(value) === '[object Date]';
}

/** What a failure does: throw before the call applies, or after (its answer lost). */
export interface Failure {
  error: Error;
  applied?: boolean;
}

class FakeCollection {
  readonly calls: Call[] = [];
  readonly documents = new Map<unknown, Document>();
  readonly failNext: Record<string, Failure[]> = {};
  private readonly holds: Record<string, Array<{ arrive: () => void; released: Promise<void> }>> =
    {};

  /** Holds the next call of `method` until `release` is called; `reached` once it is held. */
  holdNext(method: string): { release: () => void; reached: Promise<void> } {
    let release!: () => void;
    let arrive!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<void>((resolve) => (arrive = resolve));
    (this.holds[method] ??= []).push({ arrive, released });
    return { release, reached };
  }

  protected async run<T>(method: string, args: unknown[], apply: () => T): Promise<T> {
    this.calls.push({ method, args: clone(args) });
    const hold = this.holds[method]?.shift();
    if (hold) {
      hold.arrive();
      await hold.released;
    }
    const failure = this.failNext[method]?.shift();
    if (failure && !failure.applied) throw failure.error;
    const result = apply();
    if (failure) throw failure.error;
    return result;
  }

  methods(): string[] {
    return this.calls.map((call) => call.method);
  }
}

export class FakeRecords extends FakeCollection {
  replaceOne(filter: Filter, replacement: Document, options?: { upsert?: boolean }) {
    return this.run('replaceOne', [filter, replacement, options], () => {
      const id = filter._id;
      const existing = this.documents.get(id);
      if (existing && matches(existing, filter)) {
        this.documents.set(id, { ...clone(replacement), _id: id });
        return { matchedCount: 1 };
      }
      if (!options?.upsert) return { matchedCount: 0 };
      if (existing) {
        throw new MongoServerError({
          code: 11000,
          errmsg: `E11000 duplicate key error collection: shortlink.idempotency_keys index: _id_ dup key`,
          keyPattern: { _id: 1 },
        });
      }
      this.documents.set(id, { ...clone(replacement), _id: id });
      return { matchedCount: 0, upsertedId: id };
    });
  }

  updateOne(filter: Filter, update: { $set?: Document; $max?: Document }) {
    return this.run('updateOne', [filter, update], () => {
      const existing = this.documents.get(filter._id);
      if (!existing || !matches(existing, filter)) return { matchedCount: 0, modifiedCount: 0 };
      for (const [field, value] of Object.entries(update.$set ?? {})) {
        existing[field] = clone(value);
      }
      for (const [field, value] of Object.entries(update.$max ?? {})) {
        const current = existing[field];
        if (!isDate(current) || (value as Date) > current) existing[field] = clone(value);
      }
      return { matchedCount: 1, modifiedCount: 1 };
    });
  }

  findOne(filter: Filter) {
    return this.run('findOne', [filter], () => {
      const found = this.documents.get(filter._id);
      return found && matches(found, filter) ? clone(found) : null;
    });
  }

  deleteOne(filter: Filter) {
    return this.run('deleteOne', [filter], () => {
      const found = this.documents.get(filter._id);
      if (!found || !matches(found, filter)) return { deletedCount: 0 };
      this.documents.delete(filter._id);
      return { deletedCount: 1 };
    });
  }

  record(id: string): IdempotencyDocument | undefined {
    return this.documents.get(id) as IdempotencyDocument | undefined;
  }

  asCollection(): Collection<IdempotencyDocument> {
    return this as unknown as Collection<IdempotencyDocument>;
  }
}

export class FakeLinks extends FakeCollection {
  insertOne(document: Document) {
    return this.run('insertOne', [document], () => {
      const held = [...this.documents.values()];
      const clash = held.find((d) => d.domain === document.domain && d.alias === document.alias);
      if (clash || this.documents.has(document._id)) {
        const byAlias = clash !== undefined;
        throw new MongoServerError({
          code: 11000,
          errmsg: `E11000 duplicate key error collection: shortlink.links index: ${
            byAlias ? INDEXES.linkAlias.name : '_id_'
          } dup key`,
          keyPattern: byAlias ? { domain: 1, alias: 1 } : { _id: 1 },
        });
      }
      this.documents.set(document._id, clone(document));
      return { acknowledged: true, insertedId: document._id };
    });
  }

  findOne(filter: Filter, options?: unknown) {
    return this.run('findOne', [filter, options], () => {
      const found = [...this.documents.values()].find((d) => matches(d, filter));
      return found ? clone(found) : null;
    });
  }

  asCollection(): Collection<LinkDocument> {
    return this as unknown as Collection<LinkDocument>;
  }

  /**
   * Provisioning's count of a link domain's links, when the test's organizations are made: not
   * recorded among `calls`, which are the keyed create's.
   */
  countDocuments(filter: Filter, options: { limit?: number } = {}) {
    const found = [...this.documents.values()].filter((d) => matches(d, filter)).length;
    return Promise.resolve(Math.min(found, options.limit ?? Number.POSITIVE_INFINITY));
  }
}

/** The link id counter: each update reserves as many ids as it asks for. */
export function fakeCounters(): Collection<CounterDocument> {
  let seq = 0;
  return {
    findOneAndUpdate: (_filter: unknown, update: { $inc: { seq: number } }) => {
      seq += update.$inc.seq;
      return Promise.resolve({ _id: LINK_ID_COUNTER, seq });
    },
  } as unknown as Collection<CounterDocument>;
}
