import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createMongoRateLimiters, mongoStoreOn } from '../../core/adapters/mongodb';
import { FakeMongo } from '../support/fake-mongo-db';
import {
  countRoundTrips,
  total,
  type RoundTripReport,
  type Trips,
} from '../support/mongo-round-trips';

/**
 * What one create or follow sends to MongoDB and to Redis, counted where it leaves the process:
 * the runtime as createRuntime builds it (caches, limiters, URL guard) on a fake MongoDB at the
 * driver's Db/Collection level (each call the driver answers with one command counts one), and
 * the real local Redis, its commands counted as ioredis sends them. The numbers are asserted
 * exactly, so they cannot drift unnoticed, and the MongoDB README states them (checked below).
 * The fake is no MongoDB: nothing here is "tested against MongoDB".
 */
const REDIS_URL = process.env.REDIS_URL?.trim() || 'redis://127.0.0.1:6379';
const README = resolve(__dirname, '../../core/adapters/mongodb/README.md');

let mongoOnly: RoundTripReport;
let withRedis: RoundTripReport;
let noCaches: RoundTripReport;

beforeAll(async () => {
  mongoOnly = await countRoundTrips();
  withRedis = await countRoundTrips({ redisUrl: REDIS_URL });
  noCaches = await countRoundTrips({ caches: false });
});

/** The identity lookups of a create with nothing cached. */
const IDENTITY_LOOKUPS = {
  'tokens.findOne': 1,
  'organizations.findOne': 1,
  'memberships.findOne': 1,
  'groups.findOne': 1,
};
/** The URL guard's list of link domains, reloaded by the first check of each period. */
const LINK_DOMAINS = { 'organizations.distinct': 1 };
const RATE_LIMIT_ON_MONGODB = { 'rate_limits.findOneAndUpdate': 1 };
/** The first create of a process reserves its block of ids (ID_BLOCK_SIZE). */
const ID_BLOCK = { 'counters.findOneAndUpdate': 1 };
const INSERT = { 'links.insertOne': 1 };

/**
 * The follow-miss budgets an IPv6 client (the follower here) counts in: its /64, /56 and /48,
 * sent together.
 */
const MISS_BUDGETS = 3;

/** Redis commands of `consumes` consumes: EVALSHA each, and EVAL after it when the server lacks the script. */
function expectOneConsume(redis: Record<string, number>, consumes = 1): void {
  expect(redis.evalsha).toBe(consumes);
  expect(Object.keys(redis).filter((name) => name !== 'evalsha' && name !== 'eval')).toEqual([]);
  expect(redis.eval ?? 0).toBeLessThanOrEqual(1);
}

describe('round trips per operation on MongoDB, rate limits on MongoDB', () => {
  it('a cold create: the identity lookups, the rate-limit window, the link domains, an id block, the insert', () => {
    expect(mongoOnly.createCold).toEqual({
      mongo: {
        ...IDENTITY_LOOKUPS,
        ...RATE_LIMIT_ON_MONGODB,
        ...LINK_DOMAINS,
        ...ID_BLOCK,
        ...INSERT,
      },
      redis: {},
    });
  });

  it('a warm create: the rate-limit window and the insert (the id comes from the block in hand)', () => {
    expect(mongoOnly.createWarm).toEqual({
      mongo: { ...RATE_LIMIT_ON_MONGODB, ...INSERT },
      redis: {},
    });
  });

  it('a warm create with an Idempotency-Key: the claim, then mark, insert and complete', () => {
    expect(mongoOnly.createKeyed).toEqual({
      mongo: {
        ...RATE_LIMIT_ON_MONGODB,
        'idempotency_keys.replaceOne': 2,
        'idempotency_keys.updateOne': 1,
        ...INSERT,
      },
      redis: {},
    });
  });

  it('following: the link and its organization the first time, nothing after; a miss, one lookup and its count', () => {
    expect(mongoOnly.followCold).toEqual({
      mongo: { 'links.findOne': 1, 'organizations.findOne': 1, ...LINK_DOMAINS },
      redis: {},
    });
    expect(mongoOnly.followWarm).toEqual({ mongo: {}, redis: {} });
    // The Host is resolved in memory to the one domain its links are stored under: a miss is one
    // lookup, then one count in each of the client's budgets of misses (FOLLOW_MISSES_PER_MINUTE).
    expect(mongoOnly.followMiss).toEqual({
      mongo: { 'links.findOne': 1, 'rate_limits.findOneAndUpdate': MISS_BUDGETS },
      redis: {},
    });
  });

  it('a create whose rate-limit window just ended: the window’s upsert fails on its key (11000), then replaces the expired window', () => {
    expect(mongoOnly.createRollOver).toEqual({
      mongo: { 'rate_limits.findOneAndUpdate': 2, ...INSERT },
      redis: {},
    });
    expect(mongoOnly.rollOverDuplicateKeys).toBe(1);
  });

  it('once the caches and lists are past their time: a create looks its identities up again, a follow its link and organization; both reload the link domains', () => {
    expect(mongoOnly.createLater).toEqual({
      mongo: { ...IDENTITY_LOOKUPS, ...RATE_LIMIT_ON_MONGODB, ...LINK_DOMAINS, ...INSERT },
      redis: {},
    });
    // The URL guard's list and following's directory, each one distinct of the organizations.
    expect(mongoOnly.followLater).toEqual({
      mongo: { 'links.findOne': 1, 'organizations.findOne': 1, 'organizations.distinct': 2 },
      redis: {},
    });
  });

  it('at start-up: the limiters’ indexes, the domains links and organizations are under, each change stream’s operation time and opening', () => {
    expect(mongoOnly.startUp).toEqual({
      mongo: {
        // The link domain directory's first load; its reloads read the organizations' only.
        'links.distinct': 1,
        'organizations.distinct': 1,
        // A new database: listed, then both created (a prepared one is only listed).
        'rate_limits.listIndexes': 1,
        'rate_limits.createIndex': 2,
        'db.command ping': 2,
        'db.watch': 1,
        'links.watch': 1,
      },
      redis: {},
    });
  });
});

describe('a rate-limit window rolled over by two processes at once', () => {
  it('costs one of them 2 round trips, the other 3, with 3 duplicate-key errors in all', async () => {
    const mongo = new FakeMongo();
    const process = () =>
      createMongoRateLimiters({
        store: mongoStoreOn(mongo.client(), mongo.db(), false),
        uri: 'mongodb://fake.invalid/shortlink',
        perTokenLimit: 10,
        authFailureLimit: 10,
      });
    const [first, second] = [await process(), await process()];
    await first.perToken.consume('token:t');
    for (const window of mongo.documents('rate_limits')) window.expire = new Date(Date.now() - 1);
    const mark = mongo.calls.length;
    const duplicates = mongo.duplicateKeyErrors;
    // Both find the window ended; one replaces it; the other's replacement then finds no ended
    // window, its insert meets the new one (11000), and its first upsert, tried again, counts.
    const [a, b] = await Promise.all([
      first.perToken.consume('token:t'),
      second.perToken.consume('token:t'),
    ]);
    expect([a.remaining, b.remaining].sort()).toEqual([8, 9]);
    expect(mongo.since(mark)).toEqual({ 'rate_limits.findOneAndUpdate': 5 });
    expect(mongo.duplicateKeyErrors - duplicates).toBe(3);
  });
});

describe('round trips per operation on MongoDB, rate limits on Redis', () => {
  it('a create sends one command to Redis instead of the rate-limit window to MongoDB', () => {
    expect(withRedis.createCold.mongo).toEqual({
      ...IDENTITY_LOOKUPS,
      ...LINK_DOMAINS,
      ...ID_BLOCK,
      ...INSERT,
    });
    expectOneConsume(withRedis.createCold.redis);
    expect(withRedis.createWarm.mongo).toEqual(INSERT);
    expect(withRedis.createWarm.redis).toEqual({ evalsha: 1 });
  });

  it('following a link sends nothing to Redis; a miss counts there', () => {
    for (const trips of [withRedis.followCold, withRedis.followWarm]) {
      expect(trips.redis).toEqual({});
    }
    expect(withRedis.followMiss.mongo).toEqual({ 'links.findOne': 1 });
    expectOneConsume(withRedis.followMiss.redis, MISS_BUDGETS);
  });
});

describe('without the caches', () => {
  it('every create looks every identity up again, and every follow the link and its organization', () => {
    expect(noCaches.createWarm.mongo).toEqual({
      ...IDENTITY_LOOKUPS,
      ...RATE_LIMIT_ON_MONGODB,
      ...INSERT,
    });
    expect(noCaches.followWarm.mongo).toEqual({ 'links.findOne': 1, 'organizations.findOne': 1 });
  });
});

describe('the MongoDB README', () => {
  it('states the numbers measured here', () => {
    const rows: Array<[string, Trips, Trips]> = [
      ['first create of a process', mongoOnly.createCold, withRedis.createCold],
      ['create, caches warm', mongoOnly.createWarm, withRedis.createWarm],
      [
        'create with an `Idempotency-Key`, caches warm',
        mongoOnly.createKeyed,
        withRedis.createKeyed,
      ],
      ['first follow of a link in a process', mongoOnly.followCold, withRedis.followCold],
      ['follow, link cached', mongoOnly.followWarm, withRedis.followWarm],
      ['follow of an unknown alias (IPv6 client)', mongoOnly.followMiss, withRedis.followMiss],
      [
        'create, its rate-limit window just ended',
        mongoOnly.createRollOver,
        withRedis.createRollOver,
      ],
      ['create, caches past their time', mongoOnly.createLater, withRedis.createLater],
      ['follow, cached link past its time', mongoOnly.followLater, withRedis.followLater],
    ];
    const readme = readFileSync(README, 'utf8');
    for (const [operation, alone, redis] of rows) {
      const line = readme.split('\n').find((candidate) => candidate.startsWith(`| ${operation} `));
      expect({ operation, line: line ?? 'missing' }).toMatchObject({ operation });
      const cells = line!.split('|').map((cell) => cell.trim());
      // | operation | MongoDB (limits on MongoDB) | MongoDB (limits on Redis) | Redis | what |
      expect([cells[2], cells[3], cells[4]]).toEqual([
        String(total(alone.mongo)),
        String(total(redis.mongo)),
        String(redis.redis.evalsha ?? 0),
      ]);
    }
  });
});
