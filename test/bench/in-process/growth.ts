import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CachedStore, Core, NewLink } from '../../../core';
import { LMDB_DATA_FILE, type LmdbStore } from '../../../core/adapters/lmdb';
import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { BENCH_DOMAIN, CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { quantile } from '../support/measurement';

const IN_FLIGHT = 32;
/** Follow rounds per point; the point's p50 and p99 are those of the round with the median p99. */
const FOLLOW_ROUNDS = 3;
const FILL_BATCH = 10_000;
const FOLLOW_SAMPLE = 10_000;

export interface GrowthPoint {
  createsPerSecond: number;
  followP50Ms: number;
  followP99Ms: number;
}

export interface GrowthResult {
  links: number;
  fillSeconds: number;
  diskBytesPerLink: number;
  empty: GrowthPoint;
  full: GrowthPoint;
}

async function createsPerSecond(core: Core, seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  const worker = async () => {
    while (performance.now() < deadline) {
      await core
        .createCaller({ authorization: CREATE_HEADERS.authorization, response: {} })
        .links.create(CREATE_BODY);
      calls += 1;
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  return calls / ((performance.now() - started) / 1000);
}

/** Latency of `links.resolve` (what following a link costs the core) over random aliases. */
async function followLatencies(core: Core, aliases: readonly string[], calls: number) {
  const samples: number[] = [];
  let next = 0;
  const worker = async () => {
    while (next < calls) {
      next += 1;
      const alias = aliases[Math.floor(Math.random() * aliases.length)] as string;
      const started = performance.now();
      const found = await core.createCaller({}).links.resolve({ domain: BENCH_DOMAIN, alias });
      samples.push(performance.now() - started);
      if (found.alias !== alias) throw new Error(`resolved ${found.alias} for ${alias}`);
    }
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  samples.sort((a, b) => a - b);
  return { followP50Ms: quantile(samples, 0.5), followP99Ms: quantile(samples, 0.99) };
}

/** A full collection when the process runs with --expose-gc: no earlier phase's garbage. */
function collectGarbage(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

async function measure(core: Core, aliases: readonly string[], seconds: number) {
  collectGarbage();
  const rounds = [];
  for (let i = 0; i < FOLLOW_ROUNDS; i += 1)
    rounds.push(await followLatencies(core, aliases, 50_000));
  rounds.sort((a, b) => a.followP99Ms - b.followP99Ms);
  const follow = rounds[Math.floor(rounds.length / 2)] as (typeof rounds)[number];
  return { createsPerSecond: await createsPerSecond(core, seconds), ...follow };
}

const fillAlias = (i: number) => `g${i.toString(36)}`;

/** `count` links written through the store's own insert, FILL_BATCH at a time (one commit each). */
async function fill(store: LmdbStore, count: number): Promise<void> {
  const createdAt = new Date();
  for (let start = 0; start < count; start += FILL_BATCH) {
    const batch: Array<Promise<unknown>> = [];
    for (let i = start; i < Math.min(count, start + FILL_BATCH); i += 1) {
      const link: NewLink = {
        domain: BENCH_DOMAIN,
        alias: fillAlias(i),
        url: `https://example.com/filled/${i}`,
        redirectType: 301,
        scheme: 'https',
        organizationId: 'bench',
        groupApiId: '1',
        userId: 'bench',
        createdAt,
      };
      batch.push(store.links.insert(link));
    }
    await Promise.all(batch);
  }
}

const fileBytes = (dir: string) => statSync(join(dir, LMDB_DATA_FILE)).size;

/**
 * The LMDB store empty against the same store holding `links` links: core links.create calls/s
 * and links.resolve latency (in-process, the store's cost without a transport), and the disk
 * bytes each link takes.
 */
async function main(): Promise<void> {
  const [seedFile = '', dataDir = '', linksText = '1000000', secondsText = '3'] =
    process.argv.slice(2);
  const links = Number(linksText);
  const seconds = Number(secondsText);
  // The link cache off: with it, every follow of the sample is a cache hit after the warm-up, and
  // the rows would compare the cache with itself rather than a small store with a large one.
  const runtime = await createBenchRuntime(seedFile, dataDir, { LINK_CACHE_SIZE: '0' });
  const { core } = runtime;
  const store = (core.deps.store as CachedStore).backend as LmdbStore;
  // As many distinct links as the full store's sample, so both follow the same number of distinct
  // keys and only the store's size differs.
  const sample: string[] = [];
  for (let i = 0; i < FOLLOW_SAMPLE; i += 1) {
    const created = await core
      .createCaller({ authorization: CREATE_HEADERS.authorization, response: {} })
      .links.create(CREATE_BODY);
    sample.push(created.alias);
  }
  await measure(core, sample, seconds); // warm-up
  const empty = await measure(core, sample, seconds);

  const bytesBefore = fileBytes(store.path);
  const fillStarted = performance.now();
  await fill(store, links);
  const fillSeconds = (performance.now() - fillStarted) / 1000;
  const diskBytesPerLink = (fileBytes(store.path) - bytesBefore) / links;
  // FOLLOW_SAMPLE distinct links, spread over the whole store.
  const stride = Math.max(1, Math.floor(links / FOLLOW_SAMPLE));
  const filled = Array.from({ length: Math.min(FOLLOW_SAMPLE, links) }, (_, i) =>
    fillAlias(i * stride),
  );
  await measure(core, filled, seconds); // warm-up at the new size
  const full = await measure(core, filled, seconds);
  await runtime.close();
  const result: GrowthResult = { links, fillSeconds, diskBytesPerLink, empty, full };
  await tellParent({ type: 'result', ...result });
}

main().catch(failChild);
