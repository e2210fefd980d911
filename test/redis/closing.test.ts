import { limitersOnSharedRedis } from './support/shared-limit-fixture';

/**
 * The delays of the timers started while `run` ran that are still due once it has settled:
 * neither fired nor cleared. A due timer keeps the process alive, so an embedder's process that
 * closed everything would not exit until it fires.
 */
async function timersLeftBy(run: () => Promise<void>): Promise<number[]> {
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
    // What the closing set off (a socket's close event) runs before this.
    await new Promise((resolve) => setImmediate(resolve));
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
