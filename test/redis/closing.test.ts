import { silentLogger } from '../../core';
import { createRedisLimiters } from '../../core/adapters/redis/redis-limiters';
import { eventually } from '../support/eventually';
import { uniqueKeyPrefix } from './support/redis-process';
import { redisCli, SENTINEL_MASTER_NAME, SentinelProcesses } from './support/redis-topologies';
import { limitersOnSharedRedis } from './support/shared-limit-fixture';

jest.setTimeout(120_000);

/**
 * The delays of the timers started while `run` ran that are still due `settleMs` after it:
 * neither fired nor cleared. A timer that ioredis clears when a socket closes goes within
 * milliseconds; one left for a socket already closed stays due until it fires (2 s). A due timer
 * keeps the process alive, so an embedder's process that closed everything would not exit.
 */
async function timersLeftBy(run: () => Promise<void>, settleMs = 1000): Promise<number[]> {
  const due = new Map<NodeJS.Timeout, number>();
  const realSetTimeout = global.setTimeout;
  const realClearTimeout = global.clearTimeout;
  const set = jest.spyOn(global, 'setTimeout').mockImplementation(((
    callback: (...args: unknown[]) => void,
    delay?: number,
    ...args: unknown[]
  ) => {
    const timer = realSetTimeout(
      (...given: unknown[]) => {
        due.delete(timer);
        callback(...given);
      },
      delay,
      ...args,
    );
    due.set(timer, delay ?? 0);
    return timer;
  }) as typeof setTimeout);
  const clear = jest.spyOn(global, 'clearTimeout').mockImplementation((timer) => {
    due.delete(timer as NodeJS.Timeout);
    realClearTimeout(timer);
  });
  try {
    await run();
    const deadline = Date.now() + settleMs;
    while (due.size > 0 && Date.now() < deadline) {
      await new Promise((resolve) => realSetTimeout(resolve, 10));
    }
    return [...due.values()];
  } finally {
    set.mockRestore();
    clear.mockRestore();
  }
}

describe('closing the Redis limiters', () => {
  it('leaves no timer that would keep the process alive', async () => {
    const shared = await limitersOnSharedRedis('closing');
    // A connection that has been used, as at the end of a server's life.
    await shared.limiters.perToken.consume('closing-token');
    expect(await timersLeftBy(() => shared.close())).toEqual([]);
  });
});

describe('closing the Redis limiters under Sentinel (real redis-server processes)', () => {
  let sentinel: SentinelProcesses;

  beforeAll(async () => {
    sentinel = await SentinelProcesses.start();
  });

  afterAll(async () => {
    await sentinel?.stop();
  });

  it("also closes the sentinels' connections, and leaves no timer", async () => {
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
});

/** The `connected_clients` a redis-server (or sentinel) reports, less redis-cli's own. */
async function connectedClients(port: number): Promise<number> {
  const info = await redisCli(port, 'INFO', 'clients');
  return Number(/connected_clients:(\d+)/.exec(info)?.[1]) - 1;
}
