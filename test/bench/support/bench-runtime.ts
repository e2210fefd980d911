import pino from 'pino';
import { createRuntime, IN_MEMORY_DATA_DIR, loadConfig, type Runtime } from '../../../core/runtime';

/** A rate limit no benchmark reaches, set through configuration like any deployment would. */
export const BENCH_RATE_LIMIT_PER_MINUTE = 1_000_000_000;

/**
 * The production composition root (createRuntime on the environment's configuration) seeded
 * with the bench credentials: what the in-process measurements run on. `dataDir` is the store's
 * DATA_DIR (LMDB), or `:memory:` (the default here) for the in-memory store.
 */
export function createBenchRuntime(
  seedFile: string,
  dataDir: string = IN_MEMORY_DATA_DIR,
  /** More configuration (the growth rows turn the link cache off). */
  env: Record<string, string> = {},
): Promise<Runtime> {
  const config = loadConfig({
    ...process.env,
    ...env,
    DATA_DIR: dataDir,
    SHORTLINK_SEED_FILE: seedFile,
    METRICS_PORT: '0',
    RATE_LIMIT_PER_MINUTE: String(BENCH_RATE_LIMIT_PER_MINUTE),
  });
  return createRuntime(config, pino({ level: 'silent' }));
}
