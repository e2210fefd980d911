import { join } from 'node:path';
import { openEnvironment } from '../../../core/adapters/lmdb/lmdb-store';
import { alternating } from '../support/alternating';
import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { createThrough, inFlight, medianRate, type Rate } from '../support/in-flight';
import { rawLinkWriter } from '../support/raw-link-write';

const ROUNDS = 3;

export interface KeyedWritesResult {
  core: { keyed: Rate; plain: Rate };
  lmdb: { linkAndRecord: Rate; link: Rate };
}

/** lmdb-js alone (rawLinkWriter): a link and a record per transaction, or a link alone. */
function rawLmdb(path: string) {
  const root = openEnvironment(path);
  const write = rawLinkWriter(root);
  return {
    linkAndRecord: write(true),
    link: write(false),
    /** Waits until what was written is on disk, so no round pays for the last one's sync. */
    settle: () => root.flushed,
    close: () => root.close(),
  };
}

/**
 * `a` against `b`: a warm-up of `warmup` seconds each, then ROUNDS alternating rounds of
 * `seconds`, each started once `settle` says the last round's writes are on disk (no round pays
 * for the one before); the medians of each side.
 */
async function pair(
  times: { seconds: number; warmup: number },
  settle: () => PromiseLike<unknown>,
  a: () => Promise<unknown>,
  b: () => Promise<unknown>,
): Promise<[Rate, Rate]> {
  await inFlight(times.warmup, a);
  await inFlight(times.warmup, b);
  const round = (call: () => Promise<unknown>) => async () => {
    await settle();
    return inFlight(times.seconds, call);
  };
  const rounds = await alternating(ROUNDS, round(a), round(b));
  return [medianRate(rounds.a), medianRate(rounds.b)];
}

/**
 * Where a keyed create's extra cost lies: core links.create with a fresh idempotency key against
 * none (in-process, LMDB, no transport), and lmdb-js alone writing a link and a record against a
 * link alone, each pair in alternating rounds after a warm-up; medians.
 */
async function main(): Promise<void> {
  const [seedFile = '', dataDir = '', secondsText = '3', warmupText = '5'] = process.argv.slice(2);
  const times = { seconds: Number(secondsText), warmup: Number(warmupText) };

  const runtime = await createBenchRuntime(seedFile, join(dataDir, 'core'));
  let core: [Rate, Rate];
  try {
    core = await pair(
      times,
      () => runtime.core.deps.store.flush(),
      createThrough(runtime.core, true),
      createThrough(runtime.core),
    );
  } finally {
    await runtime.close();
  }

  const raw = rawLmdb(join(dataDir, 'lmdb'));
  let lmdb: [Rate, Rate];
  try {
    lmdb = await pair(times, raw.settle, raw.linkAndRecord, raw.link);
  } finally {
    await raw.close();
  }

  const result: KeyedWritesResult = {
    core: { keyed: core[0], plain: core[1] },
    lmdb: { linkAndRecord: lmdb[0], link: lmdb[1] },
  };
  await tellParent({ type: 'result', ...result });
}

main().catch(failChild);
