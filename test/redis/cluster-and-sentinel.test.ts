import { eventually, LONG_WAIT_MS } from '../support/eventually';
import { Redis } from 'ioredis';
import { createCore, ErrorCode, hashSecret, silentLogger } from '../../core';
import { createRedisLimiters } from '../../core/adapters/redis/redis-limiters';
import { createTestCore } from '../support/core-fixture';
import { startHttp, type HttpAnswer, type HttpFixture } from '../support/http-fixture';
import { captureLogs } from '../support/log-capture';
import { uniqueKeyPrefix } from '../support/redis-process';
import {
  RedisClusterProcesses,
  SENTINEL_MASTER_NAME,
  SentinelProcesses,
  redisCli,
} from '../support/redis-topologies';
import { createTwoCores, type TwoCores } from '../support/shared-limit-fixture';
import { timersLeftBy } from '../support/timers-left';

jest.setTimeout(180_000);

const codeOf = (answer: HttpAnswer) => (answer.json() as { code: number }).code;

/** 100 concurrent creates with one token, alternating between the two servers. */
async function hundredCreates(two: TwoCores, servers: HttpFixture[]): Promise<HttpAnswer[]> {
  return Promise.all(
    Array.from({ length: 100 }, (_, i) =>
      servers[i % 2]!.create(two.fixture.body(), two.fixture.token),
    ),
  );
}

/** The `connected_clients` a redis-server (or sentinel) reports, less redis-cli's own. */
async function connectedClients(port: number): Promise<number> {
  const info = await redisCli(port, 'INFO', 'clients');
  return Number(/connected_clients:(\d+)/.exec(info)?.[1]) - 1;
}

describe('a Redis Cluster of three masters (real redis-server processes)', () => {
  let cluster: RedisClusterProcesses;

  beforeAll(async () => {
    cluster = await RedisClusterProcesses.start();
  });

  afterAll(async () => {
    await cluster?.stop();
  });

  it('gives one token exactly 60 of 100 over two servers, each with its own Cluster client', async () => {
    const two = await createTwoCores({ url: cluster.url, keyPrefix: uniqueKeyPrefix('cluster') });
    const servers = [await startHttp(two.cores[0]), await startHttp(two.cores[1])];
    try {
      const answers = await hundredCreates(two, servers);
      expect(answers.filter((a) => a.status === 200)).toHaveLength(60);
      const refused = answers.filter((a) => a.status === 429);
      expect(refused).toHaveLength(40);
      expect(refused.every((a) => codeOf(a) === ErrorCode.RATE_LIMITED)).toBe(true);
      // Counted in the cluster, in one key (no hash tag), on the node owning its slot.
      expect(await two.inspector.get(two.tokenKey())).toBe('100');
      const owner = await cluster.ownerOf(two.tokenKey());
      const direct = new Redis({ host: '127.0.0.1', port: owner, maxRetriesPerRequest: 1 });
      try {
        expect(await direct.get(two.tokenKey())).toBe('100');
      } finally {
        direct.disconnect();
      }
      expect(two.limiters.map((l) => l.monitor.mode)).toEqual(['shared', 'shared']);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await two.close();
    }
  });

  it('shares the budget of unknown aliases per address over two servers, in the cluster', async () => {
    const two = await createTwoCores({
      url: cluster.url,
      keyPrefix: uniqueKeyPrefix('cluster-follow'),
      followMissLimit: 3,
    });
    const servers = [await startHttp(two.cores[0]), await startHttp(two.cores[1])];
    try {
      const statuses = [];
      for (let i = 0; i < 5; i += 1) {
        const answer = await servers[i % 2]!.request({
          path: `/nothere${i}`,
          headers: { host: 'acme.link' },
        });
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([404, 404, 404, 429, 429]);
      expect(await two.inspector.get(two.followMissKey('127.0.0.1'))).toBe('5');
      expect(two.limiters.map((l) => l.monitor.mode)).toEqual(['shared', 'shared']);
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await two.close();
    }
  });

  it('spreads limiter keys over the slots: keys of different tokens land on different nodes', async () => {
    const prefix = uniqueKeyPrefix('spread');
    const owners = new Set<number>();
    for (let i = 0; i < 12; i += 1) {
      owners.add(await cluster.ownerOf(`${prefix}:ratelimit:token:${hashSecret(`t${i}`)}`));
    }
    expect(owners.size).toBeGreaterThan(1);
  });

  it('treats MOVED from a single-server URL as a configuration error: code 23, logged once, no per-process counting', async () => {
    const keyPrefix = uniqueKeyPrefix('moved');
    const fixture = await createTestCore();
    const tokenKey = `${keyPrefix}:ratelimit:token:${hashSecret(fixture.token)}`;
    const owner = await cluster.ownerOf(tokenKey);
    const wrongNode = cluster.ports.find((port) => port !== owner)!;
    const { logger, records } = captureLogs();
    const limiters = await createRedisLimiters({
      url: `redis://127.0.0.1:${wrongNode}`,
      keyPrefix,
      perTokenLimit: 60,
      authFailureLimit: 30,
      logger,
    });
    const core = createCore({
      store: fixture.store,
      rateLimiter: limiters.perToken,
      authFailureLimiter: limiters.authFailures,
    });
    const server = await startHttp(core);
    try {
      for (let i = 0; i < 3; i += 1) {
        const answer = await server.create(fixture.body(), fixture.token);
        expect(answer.status).toBe(503);
        expect(codeOf(answer)).toBe(ErrorCode.BACKEND_UNAVAILABLE);
      }
      expect(fixture.linkCount()).toBe(0);
      const errors = records().filter((r) => /Redis configuration error/.test(String(r.msg)));
      expect(errors).toHaveLength(1);
      expect(String(errors[0]!.fix)).toMatch(/one node of a Redis Cluster/);
      expect(limiters.monitor.mode).toBe('shared');
      expect(records().some((r) => /insurance limiter/.test(String(r.msg)))).toBe(false);
    } finally {
      await server.close();
      await limiters.close();
    }
  });
});

describe('a master, a replica and a sentinel (real redis-server processes)', () => {
  let sentinel: SentinelProcesses;

  beforeAll(async () => {
    sentinel = await SentinelProcesses.start();
  });

  afterAll(async () => {
    await sentinel?.stop();
  });

  it("closes the sentinels' connections with the limiters, and leaves no timer", async () => {
    const limiters = await createRedisLimiters({
      url: sentinel.url,
      sentinelName: SENTINEL_MASTER_NAME,
      keyPrefix: uniqueKeyPrefix('closing-sentinel'),
      perTokenLimit: 60,
      authFailureLimit: 30,
      logger: silentLogger,
    });
    await limiters.perToken.consume('closing-token');
    const sentinelClientsBefore = await connectedClients(sentinel.sentinelPort);
    expect(await timersLeftBy(() => limiters.close())).toEqual([]);
    // The failover detector's subscriptions to the sentinel are gone too.
    await eventually(
      async () => (await connectedClients(sentinel.sentinelPort)) < sentinelClientsBefore,
      "the sentinel's clients to drop",
    );
  });

  it('keeps the shared limit across a failover', async () => {
    const two = await createTwoCores({
      url: sentinel.url,
      sentinelName: SENTINEL_MASTER_NAME,
      keyPrefix: uniqueKeyPrefix('sentinel'),
      commandTimeoutMs: 1000,
    });
    const servers = [await startHttp(two.cores[0]), await startHttp(two.cores[1])];
    try {
      expect(await sentinel.currentMasterPort()).toBe(sentinel.masterPort);
      const before = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          servers[i % 2]!.create(two.fixture.body(), two.fixture.token),
        ),
      );
      expect(before.every((a) => a.status === 200)).toBe(true);
      // The count reached the replica before it is promoted.
      await eventually(
        async () => {
          const replica = new Redis({ port: sentinel.replicaPort, maxRetriesPerRequest: 1 });
          try {
            return (await replica.get(two.tokenKey())) === '30';
          } finally {
            replica.disconnect();
          }
        },
        'the replica holds the count',
        LONG_WAIT_MS,
      );

      await sentinel.failover();
      // The failover window: the old master rejoins as a replica, each client learns of the new
      // master (+switch-master, or READONLY and a reconnection) and writes there again, and
      // keeps doing so for a while (a second reconnection may follow the first).
      await eventually(
        async () =>
          (await redisCli(sentinel.masterPort, 'ROLE').catch(() => '')).startsWith('slave'),
        'the old master is a replica',
        LONG_WAIT_MS,
      );
      for (const limiters of two.limiters) {
        let steady = 0;
        await eventually(
          async () => {
            try {
              await limiters.client.set(`${two.tokenKey()}:probe`, '1', 'EX', 60);
              steady = limiters.monitor.mode === 'shared' ? steady + 1 : 0;
            } catch {
              steady = 0;
            }
            await new Promise((resolve) => setTimeout(resolve, 100));
            return steady >= 20;
          },
          'the client writes to the new master steadily',
          LONG_WAIT_MS,
        );
      }

      const after = await hundredCreates(two, servers);
      // 60 per window over both servers and both masters: 30 before, 30 after.
      expect(after.filter((a) => a.status === 200)).toHaveLength(30);
      expect(after.filter((a) => a.status === 429)).toHaveLength(70);
      const promoted = new Redis({ port: sentinel.replicaPort, maxRetriesPerRequest: 1 });
      try {
        expect(await promoted.get(two.tokenKey())).toBe('130');
      } finally {
        promoted.disconnect();
      }
    } finally {
      await Promise.all(servers.map((server) => server.close()));
      await two.close();
    }
  });
});
