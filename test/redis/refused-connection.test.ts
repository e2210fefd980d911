import { Redis } from 'ioredis';
import { BackendUnavailableError } from '../../core';
import { createRedisLimiters, type RedisLimiters } from '../../core/adapters/redis/redis-limiters';
import { captureLogs, type CapturedLogs } from '../support/log-capture';
import { RedisProcess, uniqueKeyPrefix } from '../support/redis-process';

jest.setTimeout(60_000);

const CONFIGURATION_ERROR = /Redis configuration error/;

/**
 * A Redis that answers but refuses what REDIS_URL asks for (its credentials, or a database it
 * does not have) is misconfigured, not down: as with MOVED or READONLY, the rate-limited calls
 * fail with code 23 and one error line says what to fix. Counting per process (a refused
 * password never becomes ready), or in database 0 (ioredis goes on after a refused SELECT), would
 * hide it for good.
 */
describe('a Redis that refuses REDIS_URL’s credentials or database (a private redis-server)', () => {
  let redis: RedisProcess;
  let limiters: RedisLimiters | undefined;
  let logs: CapturedLogs;
  const clients: Redis[] = [];
  /** A plain client of the test's own (closed after each test, whatever its outcome). */
  const clientOf = (url: string) => {
    const client = new Redis(url, { maxRetriesPerRequest: 1, retryStrategy: () => null });
    clients.push(client);
    return client;
  };

  beforeEach(async () => {
    redis = await RedisProcess.start();
    logs = captureLogs();
  });

  afterEach(async () => {
    for (const client of clients.splice(0)) client.disconnect();
    await limiters?.close();
    limiters = undefined;
    await redis.stop();
  });

  async function limitersOn(url: string): Promise<RedisLimiters> {
    limiters = await createRedisLimiters({
      url,
      keyPrefix: uniqueKeyPrefix('refused'),
      perTokenLimit: 5,
      authFailureLimit: 5,
      logger: logs.logger,
      startupTimeoutMs: 2000,
    });
    return limiters;
  }

  const configurationErrors = () =>
    logs.records().filter((record) => CONFIGURATION_ERROR.test(String(record.msg)));

  it('fails the calls with code 23 when Redis wants a password REDIS_URL does not give', async () => {
    await clientOf(redis.url).config('SET', 'requirepass', 'the-right-one');

    const { perToken } = await limitersOn(redis.url);
    for (let i = 0; i < 3; i += 1) {
      await expect(perToken.consume('token')).rejects.toBeInstanceOf(BackendUnavailableError);
    }
    expect(configurationErrors()).toHaveLength(1);
    expect(configurationErrors()[0]).toMatchObject({
      level: 50,
      reason: expect.stringMatching(/^NOAUTH/),
    });
  });

  it('fails the calls with code 23 when Redis refuses the password', async () => {
    await clientOf(redis.url).config('SET', 'requirepass', 'the-right-one');

    const { perToken } = await limitersOn(`redis://:a-wrong-one@127.0.0.1:${redis.port}`);
    await expect(perToken.consume('token')).rejects.toBeInstanceOf(BackendUnavailableError);
    expect(configurationErrors()).toHaveLength(1);
  });

  it('never logs the password, at any level (ioredis errors carry the AUTH arguments)', async () => {
    await clientOf(redis.url).config('SET', 'requirepass', 'the-right-one');

    const { perToken } = await limitersOn(`redis://:a-wrong-one@127.0.0.1:${redis.port}`);
    await expect(perToken.consume('token')).rejects.toBeInstanceOf(BackendUnavailableError);
    // A few reconnection attempts, each refused and logged at debug level.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(logs.text()).toContain('WRONGPASS');
    expect(logs.text()).not.toContain('a-wrong-one');
  });

  it('fails the calls with code 23 rather than count in database 0 when the database does not exist', async () => {
    const { perToken, client } = await limitersOn(`${redis.url}/99`);
    // ioredis goes on, ready, in database 0 after the refused SELECT.
    const ready = new Promise((resolve) => {
      if (client.status === 'ready') resolve(undefined);
      else client.once('ready', resolve);
    });
    await ready;
    for (let i = 0; i < 3; i += 1) {
      await expect(perToken.consume('token')).rejects.toBeInstanceOf(BackendUnavailableError);
    }
    expect(await clientOf(redis.url).dbsize()).toBe(0);
    expect(configurationErrors()).toHaveLength(1);
  });

  it('counts in Redis again once a connection is accepted', async () => {
    const admin = clientOf(redis.url);
    await admin.config('SET', 'requirepass', 'the-right-one');
    const { perToken, monitor } = await limitersOn(redis.url);
    await expect(perToken.consume('token')).rejects.toBeInstanceOf(BackendUnavailableError);

    await admin.config('SET', 'requirepass', '');
    const deadline = Date.now() + 10_000;
    while (monitor.mode !== 'shared' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await expect(perToken.consume('token')).resolves.toMatchObject({ allowed: true, remaining: 4 });
  });
});
