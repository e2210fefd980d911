import type { UrlGuard } from '../../core';

export interface GatedUrlGuard {
  guard: UrlGuard;
  /** Resolves when a create has reached the anti-phishing stage (the call is in the core). */
  entered: Promise<void>;
  /** Lets every waiting and later check pass. */
  release(): void;
}

/**
 * A URL guard that holds every create at the anti-phishing stage until released: a call that is
 * in flight for as long as the test wants, with no timing involved.
 */
export function gatedUrlGuard(): GatedUrlGuard {
  let release!: () => void;
  let markEntered!: () => void;
  const open = new Promise<void>((resolve) => (release = resolve));
  const entered = new Promise<void>((resolve) => (markEntered = resolve));
  return {
    guard: {
      check: async () => {
        markEntered();
        await open;
        return { blocked: false };
      },
    },
    entered,
    release,
  };
}

/** Polls `predicate` until it holds; fails after a generous time (a slow machine is fine). */
export async function waitUntil(predicate: () => boolean, what: string, timeoutMs = 15000) {
  const started = Date.now();
  while (!predicate()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
