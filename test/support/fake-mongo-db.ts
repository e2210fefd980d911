import { EventEmitter } from 'node:events';
import { MongoServerError, Timestamp, type Db, type MongoClient } from 'mongodb';
import { ALL_INDEXES } from '../../core/adapters/mongodb/indexes';

/**
 * A fake MongoDB at the driver's Db/Collection level, for counting what would reach the server:
 * every call of a Collection method that the driver answers with one command (insertOne,
 * findOne, findOneAndUpdate, updateOne, replaceOne, deleteOne, distinct, countDocuments,
 * createIndex...) and every `db.command` is recorded as one round trip, `<collection>.<method>` (`db.command <name>`);
 * opening a change stream (`watch`, one `aggregate`) as `<collection or db>.watch`. The
 * collections answer as a server would for the filters and updates the store sends (equality,
 * `$or`, `$gt`, `$lte`, `$eq`, `$exists`, `$in`; `$set`, `$setOnInsert`, `$inc`, `$unset`,
 * `$max`; upserts; the unique indexes the store declares, and `_id`), enough for the store, the
 * caches and rate-limiter-flexible's MongoDB limiter to run on it. It is no MongoDB: nothing here
 * is "tested against MongoDB"; it counts and checks the driver calls the code makes.
 */
type Doc = Record<string, unknown>;

/** A change stream the driver would hand out: events never come; close() ends it. */
class SilentStream extends EventEmitter {
  closed = false;
  close(): Promise<void> {
    this.closed = true;
    return Promise.resolve();
  }
}

// The unique indexes the store and the rate limiters declare, whether or not they were created.
const UNIQUE_KEYS: Record<string, string[][]> = ALL_INDEXES.reduce<Record<string, string[][]>>(
  (byCollection, index) => {
    if (index.unique) (byCollection[index.collection] ??= []).push(Object.keys(index.key));
    return byCollection;
  },
  {},
);

/** An index as createIndex made it and listIndexes answers it. */
interface FakeIndex {
  name: string;
  key: Doc;
  unique?: boolean;
  expireAfterSeconds?: number;
}

function isPlainObject(value: unknown): value is Doc {
  return (
    typeof value === 'object' &&
    value !== null &&
    !(value instanceof Date) &&
    !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype
  );
}

function valueAt(document: Doc, path: string): unknown {
  let value: unknown = document;
  for (const part of path.split('.')) {
    if (!isPlainObject(value)) return undefined;
    value = value[part];
  }
  return value;
}

function same(a: unknown, b: unknown): boolean {
  if (a instanceof Date && b instanceof Date) return a.getTime() === b.getTime();
  if (isPlainObject(a) || isPlainObject(b)) return JSON.stringify(a) === JSON.stringify(b);
  return a === b;
}

function compare(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : (a as number);
  const y = b instanceof Date ? b.getTime() : (b as number);
  return x < y ? -1 : x > y ? 1 : 0;
}

function matchesCondition(actual: unknown, wanted: unknown): boolean {
  if (!isPlainObject(wanted) || !Object.keys(wanted).some((key) => key.startsWith('$'))) {
    return same(actual, wanted);
  }
  return Object.entries(wanted).every(([operator, operand]) => {
    switch (operator) {
      case '$eq':
        return operand === null ? actual === undefined || actual === null : same(actual, operand);
      case '$gt':
        return actual !== undefined && actual !== null && compare(actual, operand) > 0;
      case '$lt':
        return actual !== undefined && actual !== null && compare(actual, operand) < 0;
      case '$lte':
        return actual !== undefined && actual !== null && compare(actual, operand) <= 0;
      case '$exists':
        return (actual !== undefined) === operand;
      case '$in':
        return (operand as unknown[]).some((candidate) => same(actual, candidate));
      default:
        throw new Error(`the fake MongoDB has no ${operator}`);
    }
  });
}

function matches(document: Doc, filter: Doc): boolean {
  return Object.entries(filter).every(([path, wanted]) => {
    if (path === '$or') return (wanted as Doc[]).some((branch) => matches(document, branch));
    return matchesCondition(valueAt(document, path), wanted);
  });
}

function clone<T>(value: T): T {
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => clone(item)) as T;
  if (!isPlainObject(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, clone(v)])) as T;
}

function applyUpdate(document: Doc, update: Doc, inserting: boolean): void {
  for (const [operator, fields] of Object.entries(update)) {
    for (const [field, value] of Object.entries(fields as Doc)) {
      switch (operator) {
        case '$set':
          document[field] = clone(value);
          break;
        case '$setOnInsert':
          if (inserting) document[field] = clone(value);
          break;
        case '$inc':
          document[field] = ((document[field] as number | undefined) ?? 0) + (value as number);
          break;
        case '$unset':
          delete document[field];
          break;
        case '$max':
          if (document[field] === undefined || compare(value, document[field]) > 0) {
            document[field] = clone(value);
          }
          break;
        default:
          throw new Error(`the fake MongoDB has no ${operator}`);
      }
    }
  }
}

/** The equality fields of a filter: what an upsert's new document starts with. */
function equalities(filter: Doc): Doc {
  return Object.fromEntries(
    Object.entries(filter).filter(
      ([path, value]) =>
        !path.startsWith('$') &&
        !path.includes('.') &&
        !(isPlainObject(value) && Object.keys(value).some((key) => key.startsWith('$'))),
    ),
  );
}

export class FakeMongo {
  /** Every round trip, in order: `<collection>.<method>` or `db.command <name>`. */
  readonly calls: string[] = [];
  /** Duplicate-key errors (11000) answered, of any index. */
  duplicateKeyErrors = 0;
  readonly collections = new Map<string, Doc[]>();
  /** The indexes createIndex made, by collection (besides `_id_`, which every collection has). */
  readonly indexes = new Map<string, FakeIndex[]>();
  private nextObjectId = 1;
  private clock = 1;

  /** The round trips since `mark` (an index into `calls`), counted by name. */
  since(mark: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const call of this.calls.slice(mark)) counts[call] = (counts[call] ?? 0) + 1;
    return counts;
  }

  documents(name: string): Doc[] {
    let held = this.collections.get(name);
    if (!held) this.collections.set(name, (held = []));
    return held;
  }

  private insert(name: string, document: Doc): void {
    const held = this.documents(name);
    const doc = clone(document);
    doc._id ??= `oid-${this.nextObjectId++}`;
    for (const keys of [['_id'], ...(UNIQUE_KEYS[name] ?? [])]) {
      const clash = held.some((other) => keys.every((key) => same(other[key], doc[key])));
      if (clash) {
        this.duplicateKeyErrors += 1;
        const index = keys.join('_');
        throw new MongoServerError({
          code: 11000,
          errmsg: `E11000 duplicate key error collection: shortlink.${name} index: ${index} dup key`,
          keyPattern: Object.fromEntries(keys.map((key) => [key, 1])),
        });
      }
    }
    held.push(doc);
  }

  private upsertOne(
    name: string,
    filter: Doc,
    update: Doc,
    options: { upsert?: boolean } = {},
  ): { before: Doc | null; after: Doc | null; upserted: boolean } {
    const held = this.documents(name);
    const found = held.find((document) => matches(document, filter));
    if (found) {
      const before = clone(found);
      applyUpdate(found, update, false);
      return { before, after: clone(found), upserted: false };
    }
    if (!options.upsert) return { before: null, after: null, upserted: false };
    const created = clone(equalities(filter));
    applyUpdate(created, update, true);
    this.insert(name, created);
    return { before: null, after: clone(created), upserted: true };
  }

  collection(name: string) {
    const count = (method: string) => this.calls.push(`${name}.${method}`);
    const held = () => this.documents(name);
    const answer = <T>(run: () => T): Promise<T> => Promise.resolve().then(run);
    return {
      collectionName: name,
      insertOne: (document: Doc) => {
        count('insertOne');
        return answer(() => {
          this.insert(name, document);
          return { acknowledged: true, insertedId: document._id };
        });
      },
      findOne: (filter: Doc = {}) => {
        count('findOne');
        return answer(() => clone(held().find((document) => matches(document, filter)) ?? null));
      },
      findOneAndUpdate: (
        filter: Doc,
        update: Doc,
        options: { upsert?: boolean; returnDocument?: string } = {},
      ) => {
        count('findOneAndUpdate');
        return answer(() => {
          const { before, after } = this.upsertOne(name, filter, update, options);
          return options.returnDocument === 'after' ? after : before;
        });
      },
      updateOne: (filter: Doc, update: Doc, options: { upsert?: boolean } = {}) => {
        count('updateOne');
        return answer(() => {
          const { before, upserted } = this.upsertOne(name, filter, update, options);
          return {
            acknowledged: true,
            matchedCount: before ? 1 : 0,
            modifiedCount: before ? 1 : 0,
            upsertedCount: upserted ? 1 : 0,
          };
        });
      },
      replaceOne: (filter: Doc, replacement: Doc, options: { upsert?: boolean } = {}) => {
        count('replaceOne');
        return answer(() => {
          const documents = held();
          const index = documents.findIndex((document) => matches(document, filter));
          if (index >= 0) {
            documents[index] = { ...clone(replacement), _id: documents[index]!._id };
            return { acknowledged: true, matchedCount: 1, upsertedCount: 0 };
          }
          if (!options.upsert) return { acknowledged: true, matchedCount: 0, upsertedCount: 0 };
          this.insert(name, { ...clone(equalities(filter)), ...clone(replacement) });
          return { acknowledged: true, matchedCount: 0, upsertedCount: 1 };
        });
      },
      deleteOne: (filter: Doc) => {
        count('deleteOne');
        return answer(() => {
          const documents = held();
          const index = documents.findIndex((document) => matches(document, filter));
          if (index >= 0) documents.splice(index, 1);
          return { acknowledged: true, deletedCount: index >= 0 ? 1 : 0 };
        });
      },
      distinct: (field: string) => {
        count('distinct');
        return answer(() => [...new Set(held().map((document) => document[field]))]);
      },
      createIndex: (
        key: Doc,
        options: { name?: string; unique?: boolean; expireAfterSeconds?: number } = {},
      ) => {
        count('createIndex');
        return answer(() => {
          const indexName = options.name ?? Object.entries(key).flat().join('_');
          const made = this.indexes.get(name) ?? [];
          if (!made.some((index) => index.name === indexName)) {
            made.push({
              name: indexName,
              key: clone(key),
              ...(options.unique && { unique: true }),
              ...(options.expireAfterSeconds !== undefined && {
                expireAfterSeconds: options.expireAfterSeconds,
              }),
            });
          }
          this.indexes.set(name, made);
          return indexName;
        });
      },
      /** One round trip (the first batch holds every index); NamespaceNotFound (26) when the
       * collection does not exist (no document, no index). */
      listIndexes: () => ({
        toArray: () => {
          count('listIndexes');
          return answer(() => {
            const made = this.indexes.get(name);
            if (!made && (this.collections.get(name)?.length ?? 0) === 0) {
              throw new MongoServerError({
                code: 26,
                errmsg: `ns does not exist: shortlink.${name}`,
              });
            }
            return [{ v: 2, name: '_id_', key: { _id: 1 } }, ...clone(made ?? [])];
          });
        },
      }),
      watch: () => {
        count('watch');
        return new SilentStream();
      },
      countDocuments: (filter: Doc = {}, options: { limit?: number } = {}) => {
        count('countDocuments');
        return answer(() =>
          Math.min(
            held().filter((document) => matches(document, filter)).length,
            options.limit ?? Number.POSITIVE_INFINITY,
          ),
        );
      },
    };
  }

  /** A Db on this fake (`name` its database name). */
  db(name = 'shortlink'): Db {
    const fake = {
      databaseName: name,
      collection: (collection: string) => this.collection(collection),
      command: (command: Doc) => {
        this.calls.push(`db.command ${Object.keys(command)[0]}`);
        // A replica set's answer: its operation time (what change streams start at).
        return Promise.resolve({ ok: 1, operationTime: new Timestamp({ t: 1, i: this.clock++ }) });
      },
      watch: () => {
        this.calls.push('db.watch');
        return new SilentStream();
      },
    };
    return fake as unknown as Db;
  }

  /** A MongoClient whose db() is this fake (rate-limiter-flexible asks its client for the Db). */
  client(): MongoClient {
    const fake = {
      db: (name?: string) => this.db(name),
      options: { hosts: [], dbName: 'shortlink' },
      close: () => Promise.resolve(),
    };
    return fake as unknown as MongoClient;
  }
}
