import { randomUUID } from 'node:crypto';
import type { Core } from '../../../core';
import { CONCURRENCY } from './concurrency';
import { CREATE_BODY, CREATE_HEADERS } from './credentials';
import { median } from './measurement';

/** Calls per second, and CPU microseconds per call (every thread of this process: lmdb-js's too). */
export interface Rate {
  callsPerSecond: number;
  cpuMicrosPerCall: number;
}

/** `call`, `concurrency` at a time (CONCURRENCY unless told), for `seconds`. */
export async function inFlight(
  seconds: number,
  call: () => Promise<unknown>,
  concurrency = CONCURRENCY,
): Promise<Rate> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await call();
      calls += 1;
    }
  };
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { callsPerSecond: calls / elapsed, cpuMicrosPerCall: (used.user + used.system) / calls };
}

/** The medians of rounds' rates, each figure on its own. */
export const medianRate = (rates: readonly Rate[]): Rate => ({
  callsPerSecond: median(rates.map((r) => r.callsPerSecond)),
  cpuMicrosPerCall: median(rates.map((r) => r.cpuMicrosPerCall)),
});

/**
 * One `links.create` of the bench body through `core`, with a caller per call as the gateways
 * make one per request; `keyed`: under a new idempotency key each time.
 */
export const createThrough =
  (core: Core, keyed = false) =>
  () =>
    core
      .createCaller({
        authorization: CREATE_HEADERS.authorization,
        clientAddress: '127.0.0.1',
        response: {},
        idempotencyKey: keyed ? randomUUID() : undefined,
      })
      .links.create(CREATE_BODY);
