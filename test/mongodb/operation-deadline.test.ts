import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MongoClient, type Db } from 'mongodb';
import { BackendUnavailableError, type Store } from '../../core';
import { createMongoRateLimiters, mongoStoreOn } from '../../core/adapters/mongodb';
import { loadConfig } from '../../core/runtime';
import { newLink } from '../storage/fixtures';

/**
 * MONGODB_TIMEOUT_MS bounds every store and limiter call on a request's path: a database that
 * takes the request and never answers costs the request that long, then code 23. The driver's own
 * `timeoutMS` cannot do it (driver 7 ignores it), so the store races each call against the bound.
 */
const BOUND_MS = 100;
/** How long past the bound a call may take to fail before the test calls it hung. */
const SLACK_MS = 1000;

/** A Db whose every operation never settles: a primary that took the request and went away. */
function hangingDb(): Db {
  const never = () => new Promise<never>(() => undefined);
  const collection = () => new Proxy({}, { get: () => never });
  return { collection, command: never, databaseName: 'shortlink' } as unknown as Db;
}

/** Settles as `pending` does, or rejects with 'hung' after the bound and the slack. */
async function failsWithin<T>(pending: Promise<T>): Promise<unknown> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error('hung')), BOUND_MS + SLACK_MS);
  });
  try {
    await Promise.race([pending, hung]);
    return undefined;
  } catch (error) {
    return error;
  } finally {
    clearTimeout(timer);
  }
}

const link = newLink({ alias: 'a', url: 'https://example.com/' });
const requestPath: Array<[string, (store: Store) => Promise<unknown>]> = [
  ['ping', (s) => s.ping()],
  ['links.insert', (s) => s.links.insert(link)],
  ['links.findByAlias', (s) => s.links.findByAlias('acme.link', 'a')],
  ['links.listDomains', (s) => s.links.listDomains()],
  ['identities.findUserIdByTokenHash', (s) => s.identities.findUserIdByTokenHash('f')],
  ['identities.findOrganizationById', (s) => s.identities.findOrganizationById('acme')],
  ['identities.isMember', (s) => s.identities.isMember('alice', 'acme')],
  ['identities.findGroup', (s) => s.identities.findGroup('acme', '1')],
  [
    'idempotency.claim',
    (s) =>
      s.idempotency.claim(
        { key: 'k', userId: 'alice' },
        {
          state: 'running',
          fingerprint: 'f',
          owner: 'o',
          expiresAt: new Date(Date.now() + 60_000),
        },
        new Date(),
      ),
  ],
];

describe('MONGODB_TIMEOUT_MS on a database that never answers', () => {
  const store = mongoStoreOn({} as MongoClient, hangingDb(), false, {
    operationTimeoutMs: BOUND_MS,
  });

  it.each(requestPath)(
    '%s fails with BackendUnavailableError (23) at the bound',
    async (_, run) => {
      const started = Date.now();
      const error = await failsWithin(run(store));
      expect(error).toBeInstanceOf(BackendUnavailableError);
      expect((error as Error).message).toMatch(/did not answer .* within 100 ms/);
      expect(Date.now() - started).toBeGreaterThanOrEqual(BOUND_MS - 5);
    },
  );

  it('bounds the shared rate limiters on MongoDB too', async () => {
    const never = () => new Promise<never>(() => undefined);
    // Only the start-up's index listing and creation answer.
    const atStartUp: Record<string, () => unknown> = {
      listIndexes: () => ({ toArray: () => Promise.resolve([]) }),
      createIndex: () => Promise.resolve('ok'),
    };
    const collection = new Proxy({}, { get: (_t, method) => atStartUp[String(method)] ?? never });
    const client = { db: () => ({ collection: () => collection }) } as unknown as MongoClient;
    const limiters = await createMongoRateLimiters({
      store: Object.assign(mongoStoreOn(client, hangingDb(), false), { client }),
      uri: 'mongodb://unused',
      perTokenLimit: 60,
      authFailureLimit: 30,
      followMissLimit: 60,
      operationTimeoutMs: BOUND_MS,
    });
    expect(await failsWithin(limiters.perToken.consume('token:x'))).toBeInstanceOf(
      BackendUnavailableError,
    );
    expect(await failsWithin(limiters.followMisses!.consume('followmiss:x'))).toBeInstanceOf(
      BackendUnavailableError,
    );
  });

  it('is 2500 ms unless MONGODB_TIMEOUT_MS says otherwise; 0 turns it off', () => {
    expect(loadConfig({}).MONGODB_TIMEOUT_MS).toBe(2500);
    expect(loadConfig({ MONGODB_TIMEOUT_MS: '0' }).MONGODB_TIMEOUT_MS).toBe(0);
    expect(() => loadConfig({ MONGODB_TIMEOUT_MS: '-1' })).toThrow(/MONGODB_TIMEOUT_MS/);
  });
});

describe('MONGODB_TIMEOUT_MS with the real driver and a server that accepts but never answers', () => {
  let silent: Server;
  let port: number;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    silent = createServer((socket) => {
      sockets.add(socket);
      socket.on('data', () => undefined);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    port = (silent.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
  });

  it('answers 23 at the bound, long before the driver would give up by itself', async () => {
    // The driver alone would wait for its 30 s of server selection.
    const client = new MongoClient(
      `mongodb://127.0.0.1:${port}/shortlink?serverSelectionTimeoutMS=30000&connectTimeoutMS=30000`,
    );
    const store = mongoStoreOn(client, client.db('shortlink'), true, {
      operationTimeoutMs: BOUND_MS,
    });
    try {
      expect(await failsWithin(store.links.findByAlias('acme.link', 'a'))).toBeInstanceOf(
        BackendUnavailableError,
      );
    } finally {
      await store.close();
    }
  });
});
