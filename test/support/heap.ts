import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * The collector, when it can be had: jest does not run with --expose-gc, but the flag can still
 * be set at run time, and a fresh context then sees `gc`.
 */
function findGc(): (() => void) | undefined {
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === 'function') return existing;
  try {
    setFlagsFromString('--expose-gc');
    const gc: unknown = runInNewContext('gc');
    return typeof gc === 'function' ? (gc as () => void) : undefined;
  } catch {
    return undefined;
  }
}

const gc = findGc();

/** heapUsed after a full collection (several passes, so weak and finalised things go too). */
export async function settledHeapUsed(): Promise<number> {
  for (let pass = 0; pass < 3; pass += 1) {
    gc?.();
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
  return process.memoryUsage().heapUsed;
}

export const canForceGc = gc !== undefined;
