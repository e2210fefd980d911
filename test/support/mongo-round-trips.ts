import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { mongoStoreOn } from '../../core/adapters/mongodb';
import { hashSecret, Provisioner, silentLogger, systemClock } from '../../core';
import { createRuntime, loadConfig, type Runtime } from '../../core/runtime';
import { FakeMongo } from './fake-mongo-db';
import { addressKeyOf } from '../../core/auth/address-key';
import { LIMITER_KEY_PREFIX } from '../../core/rate-limit/limits';

/** Round trips of one operation: to MongoDB by `<collection>.<method>`, to Redis by command. */
export interface Trips {
  mongo: Record<string, number>;
  redis: Record<string, number>;
}

export interface RoundTripReport {
  /** What a process sends before serving (index creation, change streams' opening). */
  startUp: Trips;
  /** The first create of a process (nothing cached, no id block yet), and the second. */
  createCold: Trips;
  createWarm: Trips;
  /** A warm create with an Idempotency-Key (its claim, then the keyed insert). */
  createKeyed: Trips;
  /** In another process: the first follow of a link, the second, and an unknown alias. */
  followCold: Trips;
  followWarm: Trips;
  followMiss: Trips;
}

export interface RoundTripSettings {
  /** REDIS_URL: rate limits on Redis (real commands are counted); else on MongoDB. */
  redisUrl?: string;
  /** false: LINK_CACHE_SIZE=0 and IDENTITY_CACHE_TTL_SECONDS=0. */
  caches?: boolean;
}

/** Sum of the counts. */
export function total(counts: Record<string, number>): number {
  return Object.values(counts).reduce((sum, n) => sum + n, 0);
}

/**
 * Counts, per operation, what the runtime (createRuntime, as the service builds it) sends to
 * MongoDB and to Redis: MongoDB is a FakeMongo at the driver's Db/Collection level (each method
 * call that the driver answers with one command is one round trip); Redis is the real one at
 * REDIS_URL, its commands counted as ioredis sends them (`sendCommand`). The rate-limit keys are
 * those of a token made here at random, so nothing else on a shared Redis is touched; they are
 * deleted at the end.
 */
export async function countRoundTrips(settings: RoundTripSettings = {}): Promise<RoundTripReport> {
  const mongo = new FakeMongo();
  const redisCommands: string[] = [];
  const prototype = Redis.prototype as unknown as { sendCommand: (...args: unknown[]) => unknown };
  const sendCommand = prototype.sendCommand;
  prototype.sendCommand = function (this: unknown, ...args: unknown[]) {
    const command = args[0] as { name?: string };
    redisCommands.push(String(command?.name ?? 'unknown'));
    return sendCommand.apply(this, args);
  };
  const runtimes: Runtime[] = [];
  const start = async () => {
    const env: NodeJS.ProcessEnv = {
      MONGODB_URI: 'mongodb://fake.invalid:27017/shortlink',
      METRICS_PORT: '0',
      // Periods far longer than a run: on a slow machine a reload between the cold and the warm
      // operation (the link domains every 10 s, an identity past 5 s) would count in the warm one.
      LINK_DOMAINS_REFRESH_SECONDS: '3600',
      CHANGE_PROPAGATION_SECONDS: '3600',
      IDENTITY_CACHE_TTL_SECONDS: '3600',
      ...(settings.redisUrl ? { REDIS_URL: settings.redisUrl } : {}),
      ...(settings.caches === false
        ? { LINK_CACHE_SIZE: '0', IDENTITY_CACHE_TTL_SECONDS: '0' }
        : {}),
    };
    const backend = mongoStoreOn(mongo.client(), mongo.db(), false);
    const runtime = await createRuntime(loadConfig(env), silentLogger, { backend });
    runtimes.push(runtime);
    return runtime;
  };
  /** Lets fire-and-forget calls (a change stream's opening) go out. */
  const settle = async () => {
    for (let i = 0; i < 5; i += 1) await new Promise((resolve) => setImmediate(resolve));
  };
  const measure = async (run: () => Promise<unknown>): Promise<Trips> => {
    const mongoMark = mongo.calls.length;
    const redisMark = redisCommands.length;
    await run();
    await settle();
    const redis: Record<string, number> = {};
    for (const name of redisCommands.slice(redisMark)) redis[name] = (redis[name] ?? 0) + 1;
    return { mongo: mongo.since(mongoMark), redis };
  };

  try {
    let runtime!: Runtime;
    const startUp = await measure(async () => {
      runtime = await start();
    });
    const provisioner = new Provisioner(runtime.core.deps.store, systemClock);
    const { secretKey } = await provisioner.saveOrganization({ id: 'acme', domain: 'acme.link' });
    await provisioner.saveGroup({ organizationId: 'acme', apiId: '1' });
    await provisioner.saveUser({ id: 'alice', organizations: ['acme'] });
    // A token of its own: its rate-limit window on a shared Redis is this run's alone.
    const token = `round-trips-${randomBytes(16).toString('hex')}`;
    await provisioner.issueToken('alice', { token });
    await settle();
    const caller = runtime.core.createCaller({
      authorization: `Bearer ${token}`,
      clientAddress: '203.0.113.20',
    });
    const body = (url: string) =>
      ({ organization_key: secretKey, url_group_id: '1', url }) as never;
    const createCold = await measure(() => caller.links.create(body('https://example.com/1')));
    const createWarm = await measure(() => caller.links.create(body('https://example.com/2')));
    const createKeyed = await measure(() =>
      runtime.core
        .createCaller({
          authorization: `Bearer ${token}`,
          clientAddress: '203.0.113.20',
          idempotencyKey: `round-trips-${randomBytes(8).toString('hex')}`,
        })
        .links.create(body('https://example.com/keyed')),
    );

    // Another process follows a link the first one made.
    const other = await start();
    await settle();
    const { alias } = await caller.links.create(body('https://example.com/3'));
    // A follower with a client address, as every REST follow has: a miss counts in its budget.
    const follower = `2001:db8:${randomBytes(2).toString('hex')}::1`;
    const follow = (aliasToFollow: string) => () =>
      other.core
        .createCaller({ clientAddress: follower })
        .links.resolve({ domain: 'acme.link', alias: aliasToFollow })
        .catch((error: { reason?: string }) => {
          if (error.reason !== 'NOT_FOUND') throw error;
        });
    const followCold = await measure(follow(alias));
    const followWarm = await measure(follow(alias));
    const followMiss = await measure(follow('no-such-alias'));
    if (settings.redisUrl) {
      await deleteLimiterKeys(settings.redisUrl, [
        `${LIMITER_KEY_PREFIX.perToken}:${hashSecret(token)}`,
        `${LIMITER_KEY_PREFIX.followMisses}:${addressKeyOf(follower)}`,
      ]);
    }
    return { startUp, createCold, createWarm, createKeyed, followCold, followWarm, followMiss };
  } finally {
    prototype.sendCommand = sendCommand;
    for (const runtime of runtimes.reverse()) await runtime.close();
  }
}

/** Removes the windows this run made (by their exact keys: nothing else is touched). */
async function deleteLimiterKeys(url: string, keys: string[]): Promise<void> {
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    await redis.del(...keys.map((key) => `shortlink:ratelimit:${key}`));
  } finally {
    redis.disconnect();
  }
}
