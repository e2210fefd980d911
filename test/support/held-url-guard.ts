import type { UrlGuard } from '../../core';

/** A URL guard that holds the calls named in `held` (0 = the first call) until each is let go. */
export function heldCalls(
  held: readonly number[],
  failing: ReadonlyMap<number, Error> = new Map(),
) {
  const calls: Array<{ release: () => void }> = [];
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const guard: UrlGuard = {
    check: async () => {
      const index = calls.length;
      let release!: () => void;
      const released = new Promise<void>((resolve) => (release = resolve));
      calls.push({ release });
      for (const waiter of waiters.filter((w) => calls.length >= w.count)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve();
      }
      if (held.includes(index)) await released;
      const failure = failing.get(index);
      if (failure) throw failure;
      return { blocked: false };
    },
  };
  return {
    guard,
    /** Resolves once `count` calls have reached the guard. */
    reached: (count: number) =>
      calls.length >= count
        ? Promise.resolve()
        : new Promise<void>((resolve) => waiters.push({ count, resolve })),
    release: (index: number) => calls[index]?.release(),
  };
}
