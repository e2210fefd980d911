import { createHash } from 'node:crypto';
import { createMemoryRateLimiter, type CachedStore, type MemoryStore } from '../../../core';
import { BENCH_RATE_LIMIT_PER_MINUTE, createBenchRuntime } from '../support/bench-runtime';
import { failChild, tellParent } from '../support/child';
import { CREATE_BODY, CREATE_HEADERS } from '../support/credentials';

export const MEMORY_SAMPLE = 100_000;

interface Usage {
  rss: number;
  heapUsed: number;
}

/** Resident size and heap after full collections (needs --expose-gc). */
async function settledUsage(): Promise<Usage> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run with --expose-gc');
  for (let i = 0; i < 3; i += 1) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
  }
  const { rss, heapUsed } = process.memoryUsage();
  return { rss, heapUsed };
}

/** 100,000 links created through the core into the embedded store. */
async function links(seedFile: string): Promise<{ held: number }> {
  const runtime = await createBenchRuntime(seedFile);
  const create = () =>
    runtime.core
      .createCaller({ authorization: CREATE_HEADERS.authorization, response: {} })
      .links.create(CREATE_BODY);
  await create(); // the first call's lazy work (schemas, JIT) is not the store's memory
  const before = await settledUsage();
  for (let i = 1; i < MEMORY_SAMPLE; i += 1) await create();
  const after = await settledUsage();
  // The caches sit in front of the store; the links are counted in the store itself.
  const held = ((runtime.core.deps.store as CachedStore).backend as MemoryStore).links.size;
  if (held !== MEMORY_SAMPLE) throw new Error(`expected ${MEMORY_SAMPLE} links, found ${held}`);
  return { held, ...delta(before, after) };
}

/** 100,000 distinct tokens (keyed by their SHA-256, as the core keys them) in the memory limiter. */
async function limiterTokens(): Promise<{ held: number }> {
  const limiter = createMemoryRateLimiter({
    limit: BENCH_RATE_LIMIT_PER_MINUTE,
    keyPrefix: 'token',
  });
  const key = (i: number) => createHash('sha256').update(`token-${i}`).digest('hex');
  await limiter.consume(key(-1));
  const before = await settledUsage();
  for (let i = 0; i < MEMORY_SAMPLE; i += 1) await limiter.consume(key(i));
  const after = await settledUsage();
  const held = (await limiter.peek(key(MEMORY_SAMPLE - 1))) ? MEMORY_SAMPLE : 0;
  return { held, ...delta(before, after) };
}

function delta(before: Usage, after: Usage) {
  return {
    before,
    after,
    rssBytes: after.rss - before.rss,
    heapBytes: after.heapUsed - before.heapUsed,
  };
}

async function main(): Promise<void> {
  const [what, seedFile = ''] = process.argv.slice(2);
  const measured = what === 'links' ? await links(seedFile) : await limiterTokens();
  await tellParent({ type: 'result', what: what ?? 'limiter', sample: MEMORY_SAMPLE, ...measured });
  // The limiter's expiry timers would keep the process alive for its window.
  process.exit(0);
}

main().catch(failChild);
