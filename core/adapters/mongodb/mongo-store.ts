import { MongoClient, type Db } from 'mongodb';
import { BackendUnavailableError } from '../../errors/shortlink-error';
import { silentLogger, type Logger } from '../../ports/logger';
import type { Store } from '../../ports/store';
import { messageOf } from '../../errors/message-of';
import { isBackendUnavailable, onMongo } from './backend-errors';
import { databaseNameFromUri, mongoClientOptions } from './connection-options';
import {
  COLLECTIONS,
  type IdempotencyDocument,
  type LinkDocument,
  type VisitDocument,
} from './documents';
import { checkIdCounter, IdCounterBehindError } from './id-counter-check';
import { describeIndex, ensureIndexes, MissingIndexesError } from './indexes';
import { watchIdentityChanges } from './identity-change-stream';
import { watchLinkChanges } from './link-change-stream';
import { streamStartTime } from './resumable-change-stream';
import { MongoIdSequence } from './mongo-id-sequence';
import { MongoIdempotencyStore } from './mongo-idempotency-store';
import { MongoIdentityStore } from './mongo-identity-store';
import { MongoLinkStore } from './mongo-link-store';
import { MongoVisitStore } from './mongo-visit-store';
import { withDeadline, withinDeadline } from './operation-deadline';

export const MONGO_STORE_KIND = 'mongodb';

/** The MongoDB store; its client and database are exposed for adapters that share them. */
export interface MongoStore extends Store {
  readonly kind: typeof MONGO_STORE_KIND;
  readonly identities: MongoIdentityStore;
  readonly links: MongoLinkStore;
  readonly idempotency: MongoIdempotencyStore;
  readonly visits: MongoVisitStore;
  readonly client: MongoClient;
  readonly db: Db;
}

export interface MongoStoreOptions {
  /** A MongoDB connection string (`mongodb://` or `mongodb+srv://`). */
  uri: string;
  /** Overrides the database named in the URI (default `shortlink`). */
  dbName?: string;
  /** Link ids reserved per counter update (ID_BLOCK_SIZE; default DEFAULT_ID_BLOCK_SIZE). */
  idBlockSize?: number;
  /** The longest one store call waits (MONGODB_TIMEOUT_MS; absent or 0: unbounded). */
  operationTimeoutMs?: number;
  /**
   * Whether start-up creates missing indexes (MONGODB_CREATE_INDEXES; default true); false: it
   * only lists them and refuses to start when one is missing.
   */
  createIndexes?: boolean;
  logger?: Logger;
}

/** What the store does without I/O of its own: its logger and its id blocks. */
export interface MongoStoreSettings {
  logger?: Logger;
  /** Link ids reserved per counter update (default DEFAULT_ID_BLOCK_SIZE). */
  idBlockSize?: number;
  /**
   * The longest one store call (a port method, with every round trip it makes) waits before it
   * fails with BackendUnavailableError (MONGODB_TIMEOUT_MS; absent or 0: unbounded).
   */
  operationTimeoutMs?: number;
}

export function isMongoStore(store: Store): store is MongoStore {
  return store.kind === MONGO_STORE_KIND && 'client' in store;
}

/** Host list for messages: never the credentials that may sit in the URI. */
function describeHosts(client: MongoClient): string {
  const { hosts, srvHost } = client.options;
  // A mongodb+srv:// URI names a DNS record; its hosts are known only once it was resolved.
  return hosts.length > 0 ? hosts.map(String).join(',') : (srvHost ?? 'an unknown host');
}

/**
 * The store on an existing client and database, without any I/O. `closeClient` says whether
 * closing the store closes the client (it does when the store opened it).
 */
export function mongoStoreOn(
  client: MongoClient,
  db: Db,
  closeClient: boolean,
  settings: MongoStoreSettings = {},
): MongoStore {
  const logger = settings.logger ?? silentLogger;
  const operationTime = () => streamStartTime(db);
  // Links, ids and idempotency records are acknowledged by a majority whatever the URI says
  // (`?w=1` sets only the client's default, which a collection's own write concern overrides):
  // an acknowledged link must survive a failover, and an id block or a claim lost in a rollback
  // would hand an id or a key out twice.
  const durable = { writeConcern: { w: 'majority' } } as const;
  const links = db.collection<LinkDocument>(COLLECTIONS.links, durable);
  const idempotency = db.collection<IdempotencyDocument>(COLLECTIONS.idempotency, durable);
  const bound = <T extends object>(port: T, name: string) =>
    withDeadline(port, settings.operationTimeoutMs ?? 0, name);
  return {
    kind: MONGO_STORE_KIND,
    client,
    db,
    identities: bound(new MongoIdentityStore(db), 'identities'),
    links: bound(
      new MongoLinkStore(
        links,
        new MongoIdSequence(db.collection(COLLECTIONS.counters, durable), settings.idBlockSize),
        db.collection(COLLECTIONS.linkHistory, durable),
        idempotency,
      ),
      'links',
    ),
    idempotency: bound(new MongoIdempotencyStore(idempotency, links), 'idempotency'),
    visits: bound(
      new MongoVisitStore(db.collection<VisitDocument>(COLLECTIONS.linkVisits, durable)),
      'visits',
    ),
    watchIdentityChanges: (listener) =>
      watchIdentityChanges(db, listener, { logger, operationTime }),
    watchLinkChanges: (listener) =>
      watchLinkChanges(db.collection(COLLECTIONS.links), listener, { logger, operationTime }),
    ping: () =>
      withinDeadline(
        onMongo('ping', () => db.command({ ping: 1 })),
        settings.operationTimeoutMs ?? 0,
        'ping',
      ).then(() => undefined),
    // Each write has answered per the collection's write concern.
    flush: () => Promise.resolve(),
    close: () => (closeClient ? client.close() : Promise.resolve()),
  };
}

/** A MongoClient with the store's defaults (majority writes, short timeouts), connected. */
export async function connectMongoClient(uri: string): Promise<MongoClient> {
  let client: MongoClient;
  try {
    client = new MongoClient(uri, mongoClientOptions(uri));
  } catch (error) {
    // The driver's parse errors name the problem but never echo the credentials.
    const reason = messageOf(error);
    throw new Error(`MONGODB_URI is not a usable MongoDB connection string: ${reason}`, {
      cause: error,
    });
  }
  try {
    await client.connect();
    return client;
  } catch (error) {
    await client.close().catch(() => undefined);
    throw startupError(error, client);
  }
}

function startupError(error: unknown, client: MongoClient): Error {
  const reason = messageOf(error);
  const where = `MongoDB at ${describeHosts(client)}`;
  if (isBackendUnavailable(error)) {
    return new BackendUnavailableError(
      `${where} is unreachable (${reason}); check MONGODB_URI and that the server is running`,
      { cause: error },
    );
  }
  return new Error(`${where} refused to start the store: ${reason}`, { cause: error });
}

/**
 * What a start-up checks before serving: the server answers (`ping`), the indexes are there
 * (created when missing with `createIndexes`, else MissingIndexesError), and the id counter is
 * not behind the links (IdCounterBehindError).
 */
export async function prepareDatabase(db: Db, createIndexes: boolean): Promise<string[]> {
  await db.command({ ping: 1 });
  const created = await ensureIndexes(db, undefined, { create: createIndexes });
  await checkIdCounter(db.collection(COLLECTIONS.links), db.collection(COLLECTIONS.counters));
  return created.map(describeIndex);
}

/**
 * Connects, checks the server answers and has the indexes (created when missing, unless
 * `createIndexes` is false: then a missing one refuses the start).
 * An unreachable server fails here within the server-selection timeout (5 s by default) with a
 * BackendUnavailableError that names the hosts, so the process does not start half-working.
 */
export async function createMongoStore(options: MongoStoreOptions): Promise<MongoStore> {
  const logger = options.logger ?? silentLogger;
  const client = await connectMongoClient(options.uri);
  const db = client.db(options.dbName ?? databaseNameFromUri(options.uri));
  let created: string[];
  try {
    created = await prepareDatabase(db, options.createIndexes ?? true);
  } catch (error) {
    await client.close().catch(() => undefined);
    if (error instanceof IdCounterBehindError || error instanceof MissingIndexesError) throw error;
    throw startupError(error, client);
  }
  if (created.length > 0) logger.info({ indexes: created }, 'MongoDB indexes created');
  logger.info({ hosts: describeHosts(client), database: db.databaseName }, 'MongoDB store ready');
  return mongoStoreOn(client, db, true, {
    logger,
    ...(options.idBlockSize !== undefined && { idBlockSize: options.idBlockSize }),
    ...(options.operationTimeoutMs !== undefined && {
      operationTimeoutMs: options.operationTimeoutMs,
    }),
  });
}
