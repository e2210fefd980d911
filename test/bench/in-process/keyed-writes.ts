import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { open } from 'lmdb';
import type { Core } from '../../../core';
import { alternating } from '../support/alternating';
import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { median } from '../support/measurement';

const IN_FLIGHT = 32;
const ROUNDS = 3;

/** Calls per second and CPU microseconds per call (every thread of this process: lmdb-js's too). */
export interface Rate {
  callsPerSecond: number;
  cpuMicrosPerCall: number;
}

export interface KeyedWritesResult {
  core: { keyed: Rate; plain: Rate };
  lmdb: { linkAndRecord: Rate; link: Rate };
}

/** `call`, IN_FLIGHT at a time, for `seconds`. */
async function rate(seconds: number, call: () => Promise<unknown>): Promise<Rate> {
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
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const elapsed = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { callsPerSecond: calls / elapsed, cpuMicrosPerCall: (used.user + used.system) / calls };
}

const medianRate = (rates: Rate[]): Rate => ({
  callsPerSecond: median(rates.map((r) => r.callsPerSecond)),
  cpuMicrosPerCall: median(rates.map((r) => r.cpuMicrosPerCall)),
});

/** links.create through the production composition on LMDB, with a new key per call or none. */
function coreCreate(core: Core, keyed: boolean) {
  return () =>
    core
      .createCaller({
        authorization: CREATE_HEADERS.authorization,
        response: {},
        idempotencyKey: keyed ? randomUUID() : undefined,
      })
      .links.create(CREATE_BODY);
}

/**
 * lmdb-js alone, no shortlink code: one write transaction per call putting a link-shaped value
 * at a random key, with or without a record-shaped value at another random key in a second
 * database. The least a keyed create adds to a plain one in any design that keeps one durable
 * record per key next to the link.
 */
function rawLmdb(path: string) {
  const root = open({ path, maxDbs: 2, overlappingSync: true, eventTurnBatching: false });
  const links = root.openDB<unknown[], string[]>({ name: 'links' });
  const records = root.openDB<unknown[], string[]>({ name: 'records' });
  const url = CREATE_BODY.url;
  const write = (withRecord: boolean) => () => {
    const key = randomUUID();
    return links.transaction(() => {
      if (links.doesExist(['bench.link', key.slice(0, 8)])) return;
      void links.put(['bench.link', key.slice(0, 8)], [1, url, 301, 'https', 'o', '1', 'u', 0]);
      if (withRecord) {
        const body = JSON.stringify({ id: 1, url, alias: key.slice(0, 8) });
        void records.put([key, 'u'], ['completed', key, Date.now(), 0, body]);
      }
    });
  };
  return { linkAndRecord: write(true), link: write(false), close: () => root.close() };
}

/**
 * Where a keyed create's extra cost lies: core links.create with a fresh idempotency key against
 * none (in-process, LMDB, no transport), and lmdb-js alone writing a link and a record against a
 * link alone, each pair in alternating rounds after a warm-up; medians.
 */
async function main(): Promise<void> {
  const [seedFile = '', dataDir = '', secondsText = '3'] = process.argv.slice(2);
  const seconds = Number(secondsText);

  const runtime = await createBenchRuntime(seedFile, join(dataDir, 'core'));
  const keyed = () => rate(seconds, coreCreate(runtime.core, true));
  const plain = () => rate(seconds, coreCreate(runtime.core, false));
  let core: { a: Rate[]; b: Rate[] };
  try {
    await keyed();
    await plain();
    core = await alternating(ROUNDS, keyed, plain);
  } finally {
    await runtime.close();
  }

  const raw = rawLmdb(join(dataDir, 'lmdb'));
  let lmdb: { a: Rate[]; b: Rate[] };
  try {
    const linkAndRecord = () => rate(seconds, raw.linkAndRecord);
    const link = () => rate(seconds, raw.link);
    await linkAndRecord();
    await link();
    lmdb = await alternating(ROUNDS, linkAndRecord, link);
  } finally {
    await raw.close();
  }

  const result: KeyedWritesResult = {
    core: { keyed: medianRate(core.a), plain: medianRate(core.b) },
    lmdb: { linkAndRecord: medianRate(lmdb.a), link: medianRate(lmdb.b) },
  };
  await tellParent({ type: 'result', ...result });
}

main().catch(failChild);
