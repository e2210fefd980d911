import { statSync } from 'node:fs';
import { join } from 'node:path';
import type { CachedStore, Core, NewLink } from '../../../core';
import { LMDB_DATA_FILE, type LmdbStore } from '../../../core/adapters/lmdb';
import { alternating } from '../support/alternating';
import { createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { BENCH_DOMAIN, CREATE_BODY, CREATE_HEADERS } from '../support/credentials';
import { CONCURRENCY } from '../support/concurrency';
import { createThrough, inFlight, medianRate } from '../support/in-flight';
import { quantile } from '../support/measurement';

/** Alternating follow rounds (small store, large store, ...); each row takes the median. */
const FOLLOW_ROUNDS = 5;
/**
 * Alternating create rounds. Creates add links to the small store too (some tens of thousands a
 * round), so fewer rounds than follows keep it far smaller than the large one.
 */
const CREATE_ROUNDS = 3;
/** Every follow reads the store: with the link cache, every follow of a sample is a cache hit. */
const NO_LINK_CACHE = { LINK_CACHE_SIZE: '0' };
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
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  samples.sort((a, b) => a - b);
  return { followP50Ms: quantile(samples, 0.5), followP99Ms: quantile(samples, 0.99) };
}

type FollowLatency = Awaited<ReturnType<typeof followLatencies>>;

/** The round with the median p99 (its p50 with it). */
function medianByP99(rounds: FollowLatency[]): FollowLatency {
  const sorted = [...rounds].sort((a, b) => a.followP99Ms - b.followP99Ms);
  return sorted[Math.floor(sorted.length / 2)] as FollowLatency;
}

/** FOLLOW_SAMPLE links created through the core; their aliases. */
async function createSample(core: Core): Promise<string[]> {
  const aliases: string[] = [];
  for (let i = 0; i < FOLLOW_SAMPLE; i += 1) {
    const created = await core
      .createCaller({ authorization: CREATE_HEADERS.authorization, response: {} })
      .links.create(CREATE_BODY);
    aliases.push(created.alias);
  }
  return aliases;
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
 * A small LMDB store against a large one, in one process, both without the link cache: core
 * links.create calls/s and links.resolve latency (the store's cost without a transport), and the
 * disk bytes each link takes, each in alternating rounds (small, large, small, ...).
 */
async function main(): Promise<void> {
  const [seedFile = '', dataDir = '', linksText = '1000000', secondsText = '3'] =
    process.argv.slice(2);
  const links = Number(linksText);
  const seconds = Number(secondsText);
  const small = await createBenchRuntime(seedFile, join(dataDir, 'small'), NO_LINK_CACHE);
  const large = await createBenchRuntime(seedFile, join(dataDir, 'large'), NO_LINK_CACHE);
  try {
    // Both hold the same FOLLOW_SAMPLE links created through the core; the large one then gets
    // `links` more. Each follows as many distinct keys: only the store's size differs.
    const smallSample = await createSample(small.core);
    await createSample(large.core);
    const largeStore = (large.core.deps.store as CachedStore).backend as LmdbStore;
    const bytesBefore = fileBytes(largeStore.path);
    const fillStarted = performance.now();
    await fill(largeStore, links);
    const fillSeconds = (performance.now() - fillStarted) / 1000;
    const diskBytesPerLink = (fileBytes(largeStore.path) - bytesBefore) / links;
    // FOLLOW_SAMPLE distinct links, spread over the whole large store.
    const stride = Math.max(1, Math.floor(links / FOLLOW_SAMPLE));
    const largeSample = Array.from({ length: Math.min(FOLLOW_SAMPLE, links) }, (_, i) =>
      fillAlias(i * stride),
    );

    const followSmall = () => followLatencies(small.core, smallSample, 50_000);
    const followLarge = () => followLatencies(large.core, largeSample, 50_000);
    await followSmall(); // warm-up
    await followLarge();
    const { a: smallFollows, b: largeFollows } = await alternating(
      FOLLOW_ROUNDS,
      followSmall,
      followLarge,
    );

    const createSmall = () => inFlight(seconds, createThrough(small.core));
    const createLarge = () => inFlight(seconds, createThrough(large.core));
    await createSmall(); // warm-up
    await createLarge();
    const { a: smallCreates, b: largeCreates } = await alternating(
      CREATE_ROUNDS,
      createSmall,
      createLarge,
    );

    const result: GrowthResult = {
      links,
      fillSeconds,
      diskBytesPerLink,
      empty: {
        createsPerSecond: medianRate(smallCreates).callsPerSecond,
        ...medianByP99(smallFollows),
      },
      full: {
        createsPerSecond: medianRate(largeCreates).callsPerSecond,
        ...medianByP99(largeFollows),
      },
    };
    await tellParent({ type: 'result', ...result });
  } finally {
    await small.close();
    await large.close();
  }
}

main().catch(failChild);
