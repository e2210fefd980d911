import cluster from 'node:cluster';
import { runPrimary } from './cluster-primary';
import { createLogger } from './logger';
import { serveInThisProcess } from './serving-process';
import { loadServiceSettings } from './service-settings';
import { STOPPED_MESSAGE } from './stop-signals';

/**
 * `npm start`: reads the environment once, then serves in this process, or with WORKERS > 1 runs
 * the primary, which forks the workers (each of them runs this file again and serves).
 */
async function main(): Promise<void> {
  const settings = loadServiceSettings();
  const logger = createLogger(settings.LOG_LEVEL);
  if (cluster.isPrimary && settings.WORKERS > 1) {
    const code = await runPrimary(settings, logger);
    if (code === 0) logger.info(STOPPED_MESSAGE);
    process.exit(code);
  }
  await serveInThisProcess(settings, logger);
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`shortlink failed to start: ${message}\n`);
  process.exit(1);
});
