import closeWithGrace from 'close-with-grace';
import { createRuntime, demoCurl, loadConfig } from '../core';
import { createHttpApp } from './app';
import { listenHttp } from './http-server';
import { createLogger } from './logger';

/**
 * The process entry point (`npm start`): one composition root that builds the runtime from the
 * environment and serves the REST gateway (and the gRPC gateway) from it.
 */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const runtime = await createRuntime(config, logger);
  const readiness = { accepting: true };

  const http = await listenHttp(
    createHttpApp(runtime.core, {
      logger,
      redirectCacheMaxAge: config.REDIRECT_CACHE_MAX_AGE,
      trustProxy: config.TRUST_PROXY,
      readiness,
    }),
    { port: config.PORT, host: config.HOST },
  );
  logger.info(
    { port: http.port, host: config.HOST, store: runtime.core.deps.store.kind },
    'REST gateway listening',
  );

  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    readiness.accepting = false;
    await http.close();
    await runtime.close();
  });

  if (runtime.demo) {
    const base = `http://localhost:${http.port}`;
    process.stdout.write(
      [
        '',
        'shortlink is running on the embedded in-memory store with a demo organization:',
        `  personal access token:   ${runtime.demo.token}`,
        `  organization secret key: ${runtime.demo.organizationKey}`,
        `  url group id:            ${runtime.demo.urlGroupId}`,
        `  link domain:             ${runtime.demo.domain}`,
        '',
        'Create a short link:',
        demoCurl(runtime.demo, base),
        '',
        'then follow its short_url (curl -i <short_url>).',
        '',
      ].join('\n') + '\n',
    );
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`shortlink failed to start: ${(error as Error).message ?? String(error)}\n`);
  process.exit(1);
});
