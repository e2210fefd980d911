import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { MongoClient } from 'mongodb';
import { RateLimiterMongo } from 'rate-limiter-flexible';
import {
  BACKEND_RETRY_AFTER_SECONDS,
  BackendUnavailableError,
  createCore,
  ErrorCode,
  FlexibleRateLimiter,
  ShortlinkError,
  silentLogger,
  type Store,
} from '../../core';
import { loadConfig } from '../../core/runtime';
import {
  createMongoRateLimiters,
  createMongoStore,
  mongoStoreOn,
} from '../../core/adapters/mongodb';
import { createLimitersFromConfig } from '../../core/runtime/limiters-from-config';
import { createStoreFromConfig } from '../../core/runtime/store-from-config';
import { newLink } from '../storage/fixtures';
import { startHttp } from '../support/http-fixture';

/**
 * A real driver against a closed local port (nothing listens on port 1): the failures here are
 * the driver's own, nothing is mocked. Server selection gives up after 500 ms.
 */
const CLOSED = 'mongodb://127.0.0.1:1/shortlink?serverSelectionTimeoutMS=500';

jest.setTimeout(30_000);

/** A store on a client that never connected: every operation must select a server and fail. */
function unreachableStore(): Store {
  const client = new MongoClient(CLOSED, { serverSelectionTimeoutMS: 500 });
  return mongoStoreOn(client, client.db('shortlink'), true);
}

const link = newLink({ alias: 'a', url: 'https://example.com/' });

describe('MongoDB unreachable at start-up', () => {
  it('fails store creation with a BackendUnavailableError naming the host', async () => {
    const creation = createMongoStore({ uri: CLOSED });
    await expect(creation).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(creation).rejects.toThrow(/MongoDB at 127\.0\.0\.1:1 is unreachable/);
    await expect(creation).rejects.toThrow(/check MONGODB_URI/);
  });

  it('gives up within the default server-selection timeout when the URI sets none', async () => {
    // Default 5 s; the test's own timeout (30 s) is what catches a hang.
    await expect(createMongoStore({ uri: 'mongodb://127.0.0.1:1/x' })).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });

  it('never repeats credentials from the URI in the message', async () => {
    const creation = createMongoStore({
      uri: 'mongodb://alice:s3cr3t-pass@127.0.0.1:1/x?serverSelectionTimeoutMS=500',
    });
    await expect(creation).rejects.toThrow(/127\.0\.0\.1:1/);
    await expect(creation).rejects.not.toThrow(/s3cr3t/);
  });

  it('names the cluster when a mongodb+srv:// name does not resolve', async () => {
    const creation = createMongoStore({
      uri: 'mongodb+srv://alice:s3cr3t-pass@cluster0.nowhere.invalid/shortlink',
    });
    await expect(creation).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(creation).rejects.toThrow(/MongoDB at cluster0\.nowhere\.invalid is unreachable/);
    await expect(creation).rejects.not.toThrow(/s3cr3t/);
  });

  it('reports a malformed MONGODB_URI clearly', async () => {
    await expect(createMongoStore({ uri: 'mongodb://' })).rejects.toThrow(
      /MONGODB_URI is not a usable MongoDB connection string/,
    );
  });

  it('fails createStoreFromConfig when MONGODB_URI points nowhere', async () => {
    const config = loadConfig({ MONGODB_URI: CLOSED });
    await expect(createStoreFromConfig(config, silentLogger)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });

  it('fails the MongoDB rate limiters when they must open their own client', async () => {
    const limiters = createMongoRateLimiters({
      uri: CLOSED,
      perTokenLimit: 5,
      authFailureLimit: 5,
    });
    await expect(limiters).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('picks the MongoDB limiters from MONGODB_URI without REDIS_URL (and fails them here)', async () => {
    const config = loadConfig({ MONGODB_URI: CLOSED });
    await expect(createLimitersFromConfig(config, silentLogger)).rejects.toBeInstanceOf(
      BackendUnavailableError,
    );
  });
});

describe('MongoDB that accepts connections but never answers', () => {
  let silent: Server;
  let port: number;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    // Reads everything, answers nothing: a hung server or a black-holing proxy.
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

  const uri = () =>
    `mongodb://127.0.0.1:${port}/shortlink?serverSelectionTimeoutMS=800&connectTimeoutMS=500`;

  it('fails start-up with BackendUnavailableError instead of hanging', async () => {
    await expect(createMongoStore({ uri: uri() })).rejects.toBeInstanceOf(BackendUnavailableError);
  });

  it('fails an operation with BackendUnavailableError instead of hanging', async () => {
    const client = new MongoClient(uri());
    const store = mongoStoreOn(client, client.db('shortlink'), true);
    try {
      await expect(store.links.insert(link)).rejects.toBeInstanceOf(BackendUnavailableError);
    } finally {
      await store.close();
    }
  });
});

describe('MongoDB unreachable during a run', () => {
  const operations: Array<[string, (store: Store) => Promise<unknown>]> = [
    ['ping', (s) => s.ping()],
    ['links.insert', (s) => s.links.insert(link)],
    ['links.findByAlias', (s) => s.links.findByAlias('acme.link', 'a')],
    ['identities.findUserIdByTokenHash', (s) => s.identities.findUserIdByTokenHash('f')],
    ['identities.findOrganizationByKeyHash', (s) => s.identities.findOrganizationByKeyHash('k')],
    ['identities.findOrganizationById', (s) => s.identities.findOrganizationById('acme')],
    ['identities.isMember', (s) => s.identities.isMember('alice', 'acme')],
    ['identities.findGroup', (s) => s.identities.findGroup('acme', '1')],
    ['identities.listLinkDomains', (s) => s.identities.listLinkDomains()],
    ['identities.findUserById', (s) => s.identities.findUserById('alice')],
    [
      'identities.saveOrganization',
      (s) =>
        s.identities.saveOrganization({
          id: 'acme',
          name: 'Acme',
          domain: 'acme.link',
          scheme: 'https',
          active: true,
          keyHash: 'k',
        }),
    ],
    [
      'identities.saveGroup',
      (s) => s.identities.saveGroup({ organizationId: 'acme', apiId: '1', name: 'x' }),
    ],
    ['identities.saveUser', (s) => s.identities.saveUser({ id: 'alice', name: 'Alice' })],
    [
      'identities.saveToken',
      (s) => s.identities.saveToken({ tokenHash: 'f', userId: 'alice', createdAt: new Date() }),
    ],
    ['identities.saveMembership', (s) => s.identities.saveMembership('alice', 'acme')],
    ['identities.removeToken', (s) => s.identities.removeToken('f')],
    ['identities.removeTokensOfUser', (s) => s.identities.removeTokensOfUser('alice')],
  ];

  it.each(operations)('%s rejects with BackendUnavailableError', async (_name, run) => {
    const store = unreachableStore();
    try {
      await expect(run(store)).rejects.toBeInstanceOf(BackendUnavailableError);
    } finally {
      await store.close();
    }
  });

  it('turns into code 23 through the core, for create and for resolve', async () => {
    const store = unreachableStore();
    const core = createCore({ store });
    try {
      const create = core
        .createCaller({ authorization: `Bearer slpat_${'x'.repeat(40)}`, clientAddress: '::1' })
        .links.create({ organization_key: 'k', url_group_id: '1', url: 'https://example.com/' });
      await expect(create).rejects.toBeInstanceOf(ShortlinkError);
      await expect(create).rejects.toMatchObject({ reason: 'BACKEND_UNAVAILABLE' });
      const resolve = core.createCaller().links.resolve({ domain: 'acme.link', alias: 'a' });
      await expect(resolve).rejects.toMatchObject({ reason: 'BACKEND_UNAVAILABLE' });
      await expect(core.ready()).rejects.toBeInstanceOf(BackendUnavailableError);
    } finally {
      await store.close();
    }
  });

  it('answers a create that finds no server within serverSelectionTimeoutMS with 503, code 23 and Retry-After', async () => {
    const store = unreachableStore();
    const http = await startHttp(createCore({ store }));
    try {
      const answer = await http.create(
        { organization_key: 'k', url_group_id: '1', url: 'https://example.com/' },
        `slpat_${'x'.repeat(40)}`,
      );
      expect(answer.status).toBe(503);
      expect(answer.json()).toEqual({
        data: null,
        code: ErrorCode.BACKEND_UNAVAILABLE,
        errors: ['The service is temporarily unavailable.'],
      });
      expect(answer.headers['retry-after']).toBe(String(BACKEND_RETRY_AFTER_SECONDS));
    } finally {
      await http.close();
      await store.close();
    }
  });

  it('makes /readyz answer 503 while /healthz stays 200', async () => {
    const store = unreachableStore();
    const http = await startHttp(createCore({ store }));
    try {
      expect((await http.request({ path: '/readyz' })).status).toBe(503);
      expect((await http.request({ path: '/healthz' })).status).toBe(200);
    } finally {
      await http.close();
      await store.close();
    }
  });

  it('reports a MongoDB rate limiter without a server as unavailable, not as a decision', async () => {
    const client = new MongoClient(CLOSED, { serverSelectionTimeoutMS: 500 });
    const limiter = new FlexibleRateLimiter(
      new RateLimiterMongo({
        storeClient: client,
        dbName: 'shortlink',
        tableName: 'rate_limits',
        keyPrefix: 'token',
        points: 5,
        duration: 60,
        disableIndexesCreation: true,
      }),
    );
    try {
      await expect(limiter.consume('alice')).rejects.toBeInstanceOf(BackendUnavailableError);
      await expect(limiter.peek('alice')).rejects.toBeInstanceOf(BackendUnavailableError);
    } finally {
      await client.close();
    }
  });

  it('refuses to start MongoDB limiters on a store whose server is gone', async () => {
    const store = unreachableStore();
    try {
      await expect(
        createMongoRateLimiters({ store, uri: CLOSED, perTokenLimit: 5, authFailureLimit: 5 }),
      ).rejects.toBeInstanceOf(BackendUnavailableError);
    } finally {
      await store.close();
    }
  });
});
