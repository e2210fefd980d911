import { hash, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { META_KEYS, toStoredLink, type LinkKey } from '../../../core/adapters/lmdb/databases';
import { openEnvironment } from '../../../core/adapters/lmdb/lmdb-store';
import { successOutcome } from '../../../core/idempotency/recorded-outcome';
import { toShortLink } from '../../../core/links/short-link';
import type { LinkRecord } from '../../../core/ports/link-store';
import { alternating } from '../support/alternating';
import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { BENCH_DOMAIN, CREATE_BODY } from '../support/credentials';
import { createThrough, inFlight, medianRate, type Rate } from '../support/in-flight';

const ROUNDS = 3;

export interface KeyedWritesResult {
  core: { keyed: Rate; plain: Rate };
  lmdb: { linkAndRecord: Rate; link: Rate };
}

/**
 * lmdb-js alone, no shortlink code on the write path: in the product's environment (its
 * settings, openEnvironment), one write transaction per call that does what a link insert does
 * (check the key, take the next id from the counter, put the stored link at a random alias),
 * with or without a recorded answer (a fingerprint and the created link's JSON) at another random
 * key in a second database. The least a keyed create adds to a plain one in any design that keeps
 * one durable record per key next to the link.
 */
function rawLmdb(path: string) {
  const root = openEnvironment(path);
  const links = root.openDB<unknown, LinkKey>({ name: 'links' });
  const meta = root.openDB<unknown, string>({ name: 'meta' });
  const records = root.openDB<unknown, [string, string]>({ name: 'records' });
  const write = (withRecord: boolean) => () => {
    const key = randomUUID();
    const alias = key.slice(0, 8);
    return links.transaction(() => {
      if (links.doesExist([BENCH_DOMAIN, alias])) return;
      const last = meta.get(META_KEYS.linkIds);
      const link: LinkRecord = {
        id: (typeof last === 'number' ? last : 0) + 1,
        domain: BENCH_DOMAIN,
        alias,
        url: CREATE_BODY.url,
        redirectType: 301,
        scheme: 'https',
        organizationId: 'bench',
        groupApiId: '1',
        userId: 'bench',
        createdAt: new Date(),
      };
      void meta.put(META_KEYS.linkIds, link.id);
      void links.put([BENCH_DOMAIN, alias], toStoredLink(link));
      if (withRecord) {
        const fingerprint = hash('sha256', key, 'base64url');
        const { code, body } = successOutcome(toShortLink(link));
        void records.put([key, 'bench'], ['completed', fingerprint, Date.now(), code, body]);
      }
    });
  };
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
