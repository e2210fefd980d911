import { BackendUnavailableError } from '../../core';
import {
  createMongoRateLimiters,
  INDEXES,
  mongoStoreOn,
  prepareDatabase,
} from '../../core/adapters/mongodb';
import {
  ALL_INDEXES,
  ensureIndexes,
  MissingIndexesError,
  RATE_LIMIT_INDEXES,
} from '../../core/adapters/mongodb/indexes';
import { parseCommandLine } from '../../core/cli/admin-command-line';
import { migrateIndexes, runDbMigrate } from '../../core/cli/db-migrate';
import { ProvisioningError } from '../../core/provisioning/provisioning-error';
import { loadConfig } from '../../core/runtime/config';
import { FakeMongo } from '../support/fake-mongo-db';

/**
 * Indexes at start-up: listed first (one listIndexes per collection), created only when missing,
 * or, with MONGODB_CREATE_INDEXES=0, refused with the command that creates them. Counted on a
 * fake MongoDB at the driver's Db/Collection level (FakeMongo keeps the indexes createIndex made
 * and answers listIndexes from them, NamespaceNotFound for a collection that does not exist).
 */

const STORE_INDEXES = Object.values(INDEXES);
const collectionsOf = (indexes: ReadonlyArray<{ collection: string }>) =>
  new Set(indexes.map((index) => index.collection)).size;

/** The calls of one method since `mark`. */
const callsOf = (mongo: FakeMongo, mark: number, method: string) =>
  mongo.calls.slice(mark).filter((call) => call.endsWith(`.${method}`));

describe('the store’s indexes at start-up', () => {
  it('creates every index on a new database, and a second start creates none (listIndexes only)', async () => {
    const mongo = new FakeMongo();
    const created = await ensureIndexes(mongo.db());
    expect(created).toHaveLength(STORE_INDEXES.length);
    expect(callsOf(mongo, 0, 'createIndex')).toHaveLength(STORE_INDEXES.length);

    const mark = mongo.calls.length;
    await expect(ensureIndexes(mongo.db())).resolves.toEqual([]);
    expect(mongo.calls.slice(mark)).toHaveLength(collectionsOf(STORE_INDEXES));
    expect(callsOf(mongo, mark, 'listIndexes')).toHaveLength(collectionsOf(STORE_INDEXES));
  });

  it('creates only the one that is missing', async () => {
    const mongo = new FakeMongo();
    await ensureIndexes(mongo.db());
    const links = mongo.indexes.get('links')!;
    links.splice(
      links.findIndex((index) => index.name === INDEXES.linkAlias.name),
      1,
    );
    const mark = mongo.calls.length;
    await expect(ensureIndexes(mongo.db())).resolves.toEqual([INDEXES.linkAlias]);
    expect(callsOf(mongo, mark, 'createIndex')).toEqual(['links.createIndex']);
  });

  it('counts an index made by hand under another name, but not one that differs', async () => {
    const mongo = new FakeMongo();
    await ensureIndexes(mongo.db());
    const organizations = mongo.indexes.get('organizations')!;
    const domain = organizations.find((index) => index.name === INDEXES.organizationDomain.name)!;
    domain.name = 'domain_1';
    const mark = mongo.calls.length;
    await expect(ensureIndexes(mongo.db())).resolves.toEqual([]);
    // Not unique: not the index the store relies on.
    delete domain.unique;
    await expect(ensureIndexes(mongo.db(), STORE_INDEXES, { create: false })).rejects.toThrow(
      'organizations.domain_unique',
    );
    expect(callsOf(mongo, mark, 'createIndex')).toEqual([]);
  });

  it('with MONGODB_CREATE_INDEXES=0 refuses a database that lacks one, naming it and db migrate, creating nothing', async () => {
    const mongo = new FakeMongo();
    const db = mongo.db();
    const refusal = prepareDatabase(db, false);
    await expect(refusal).rejects.toBeInstanceOf(MissingIndexesError);
    await expect(refusal).rejects.toThrow(
      /lacks indexes shortlink needs \(links\.domain_alias_unique, .*\), and MONGODB_CREATE_INDEXES=false forbids creating them at start: run `npm run admin -- db migrate`/,
    );
    expect(callsOf(mongo, 0, 'createIndex')).toEqual([]);
    // The id check is not reached: nothing but the ping and the listings was sent.
    expect(mongo.calls.filter((call) => !call.endsWith('.listIndexes'))).toEqual([
      'db.command ping',
    ]);
  });

  it('with MONGODB_CREATE_INDEXES=0 starts on a prepared database, sending no createIndex', async () => {
    const mongo = new FakeMongo();
    await migrateIndexes(mongo.db());
    const mark = mongo.calls.length;
    await expect(prepareDatabase(mongo.db(), false)).resolves.toEqual([]);
    expect(mongo.since(mark)).toEqual({
      'db.command ping': 1,
      ...Object.fromEntries(
        [...new Set(STORE_INDEXES.map((index) => index.collection))].map((collection) => [
          `${collection}.listIndexes`,
          1,
        ]),
      ),
      'links.findOne': 1,
      'counters.findOne': 1,
    });
  });
});

describe('the rate limiters’ indexes (limits on MongoDB)', () => {
  const limiters = (mongo: FakeMongo, createIndexes: boolean) =>
    createMongoRateLimiters({
      store: mongoStoreOn(mongo.client(), mongo.db(), false),
      uri: 'mongodb://fake.invalid/shortlink',
      perTokenLimit: 10,
      authFailureLimit: 10,
      createIndexes,
    });

  it('are created once: a second process lists them and creates nothing', async () => {
    const mongo = new FakeMongo();
    await (await limiters(mongo, true)).close();
    expect(mongo.since(0)).toEqual({ 'rate_limits.listIndexes': 1, 'rate_limits.createIndex': 2 });
    const mark = mongo.calls.length;
    await (await limiters(mongo, true)).close();
    expect(mongo.since(mark)).toEqual({ 'rate_limits.listIndexes': 1 });
    expect(mongo.indexes.get('rate_limits')).toEqual([
      { name: 'key_1', key: { key: 1 }, unique: true },
      { name: 'expire_-1', key: { expire: -1 }, expireAfterSeconds: 0 },
    ]);
  });

  it('with MONGODB_CREATE_INDEXES=0 are checked, and their absence refuses the start', async () => {
    const mongo = new FakeMongo();
    await expect(limiters(mongo, false)).rejects.toThrow(
      /\(rate_limits\.key_1, rate_limits\.expire_-1\).*db migrate/,
    );
    expect(mongo.since(0)).toEqual({ 'rate_limits.listIndexes': 1 });
    await migrateIndexes(mongo.db());
    await expect(limiters(mongo, false).then((made) => made.close())).resolves.toBeUndefined();
  });
});

describe('admin db migrate', () => {
  it('creates every missing index of the store and the rate limiters, then finds nothing to do', async () => {
    const mongo = new FakeMongo();
    const first = await migrateIndexes(mongo.db());
    expect(first).toHaveLength(ALL_INDEXES.length + 1);
    expect(first).toContain('created index links.domain_alias_unique');
    expect(first).toContain('created index rate_limits.key_1');
    expect(first.at(-1)).toBe(
      `MongoDB database shortlink: ${ALL_INDEXES.length} of ${ALL_INDEXES.length} indexes created, the others were present`,
    );
    expect(callsOf(mongo, 0, 'createIndex')).toHaveLength(
      STORE_INDEXES.length + Object.keys(RATE_LIMIT_INDEXES).length,
    );
    const mark = mongo.calls.length;
    await expect(migrateIndexes(mongo.db())).resolves.toEqual([
      `MongoDB database shortlink: all ${ALL_INDEXES.length} indexes present; nothing was created`,
    ]);
    expect(callsOf(mongo, mark, 'createIndex')).toEqual([]);
  });

  it('is a command of its own, taking no option', () => {
    expect(parseCommandLine(['db', 'migrate'])).toEqual({ help: false, command: 'db migrate' });
    expect(() => parseCommandLine(['db', 'migrate', '--org', 'acme'])).toThrow(
      '"db migrate" takes no --org',
    );
  });

  it('refuses without MONGODB_URI (exit status 2), and names an unreachable server', async () => {
    const lmdb = runDbMigrate(loadConfig({ DATA_DIR: '/nonexistent' }));
    await expect(lmdb).rejects.toBeInstanceOf(ProvisioningError);
    await expect(lmdb).rejects.toThrow('db migrate prepares MongoDB (MONGODB_URI is not set)');
    const closed = 'mongodb://127.0.0.1:1/shortlink?serverSelectionTimeoutMS=300';
    const unreachable = runDbMigrate(loadConfig({ MONGODB_URI: closed }));
    await expect(unreachable).rejects.toBeInstanceOf(BackendUnavailableError);
    await expect(unreachable).rejects.toThrow(/127\.0\.0\.1:1 is unreachable/);
  });
});

describe('MONGODB_CREATE_INDEXES', () => {
  it('is on unless set to 0 or false', () => {
    expect(loadConfig({}).MONGODB_CREATE_INDEXES).toBe(true);
    expect(loadConfig({ MONGODB_CREATE_INDEXES: '0' }).MONGODB_CREATE_INDEXES).toBe(false);
    expect(loadConfig({ MONGODB_CREATE_INDEXES: 'false' }).MONGODB_CREATE_INDEXES).toBe(false);
    expect(() => loadConfig({ MONGODB_CREATE_INDEXES: 'no' })).toThrow(/MONGODB_CREATE_INDEXES/);
  });
});
