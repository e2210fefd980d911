import { join } from 'node:path';

/** Durations from the environment; the defaults keep `npm run bench` within about 5 minutes. */
export interface BenchSettings {
  seconds: number;
  rounds: number;
  /**
   * Untimed load on each target before its rounds: the service's longer code path takes several
   * seconds of load before V8 has optimised it (longer still on a busy machine).
   */
  warmupSeconds: number;
  /** BENCH_CPU_PROF=1: the subject servers write V8 CPU profiles here. */
  cpuProfileDir: string | undefined;
  resultsDir: string;
  /**
   * BENCH_ONLY=create: only REST create on LMDB against bare express and DATA_DIR=:memory:;
   * BENCH_ONLY=workers: only the WORKERS comparison; BENCH_ONLY=metrics: only REST create with
   * metrics against without; BENCH_ONLY=growth: only the growth rows (with BENCH_GROWTH_LINKS,
   * the 10,000,000); BENCH_ONLY=idempotency: only the idempotency-key rows;
   * BENCH_ONLY=grpc: only the gRPC create rows; BENCH_ONLY=follow: only the link governance
   * follow rows (this build against the one before it, a 410 against a redirect). Printed and
   * not written.
   */
  only: (typeof ONLY_SCENARIOS)[number] | undefined;
  /**
   * Links filled into the LMDB store for the growth rows (BENCH_GROWTH_LINKS). The issue's
   * figure is 10,000,000 (a few minutes and about 1.5 GB of disk); the default keeps the run short.
   */
  growthLinks: number;
  /**
   * The commit the follow rows' "before" server is built from (BENCH_FOLLOW_BEFORE; default the
   * last one before link governance, 59aa828): e.g. the commit before a change to following.
   */
  followBefore: string | undefined;
}

function positive(name: string, fallback: number): number {
  const text = process.env[name];
  if (text === undefined || text.trim() === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}

const ONLY_SCENARIOS = [
  'create',
  'workers',
  'metrics',
  'growth',
  'idempotency',
  'grpc',
  'follow',
] as const;

function onlyOf(text: string | undefined): BenchSettings['only'] {
  if (text === undefined || text === '') return undefined;
  const only = ONLY_SCENARIOS.find((scenario) => scenario === text);
  if (only === undefined) throw new Error(`BENCH_ONLY must be one of ${ONLY_SCENARIOS.join(', ')}`);
  return only;
}

export function loadSettings(): BenchSettings {
  const seconds = positive('BENCH_SECONDS', 3);
  const resultsDir = join(process.cwd(), 'bench-results');
  return {
    seconds,
    rounds: Math.round(positive('BENCH_ROUNDS', 5)),
    warmupSeconds: positive('BENCH_WARMUP_SECONDS', 5),
    cpuProfileDir: process.env.BENCH_CPU_PROF === '1' ? join(resultsDir, 'profiles') : undefined,
    resultsDir,
    only: onlyOf(process.env.BENCH_ONLY),
    growthLinks: Math.round(positive('BENCH_GROWTH_LINKS', 1_000_000)),
    followBefore: process.env.BENCH_FOLLOW_BEFORE?.trim() || undefined,
  };
}
