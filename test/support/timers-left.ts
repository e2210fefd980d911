/**
 * The delays of the timers started while `run` ran that are still due `settleMs` after it:
 * neither fired nor cleared. A timer that ioredis clears when a socket closes goes within
 * milliseconds; one left for a socket already closed stays due until it fires (2 s). A due timer
 * keeps the process alive, so an embedder's process that closed everything would not exit.
 */
export async function timersLeftBy(run: () => Promise<void>, settleMs = 1000): Promise<number[]> {
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
