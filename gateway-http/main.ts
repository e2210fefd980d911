import closeWithGrace from 'close-with-grace';
import { resolve } from 'node:path';
import {
  demoCurl,
  demoGrpcurl,
  IN_MEMORY_DATA_DIR,
  loadConfig,
  type Config,
  type DemoCredentials,
} from '../core';
import { createLogger } from './logger';
import { startService } from './service';

/** Where the demo lives, for the banner's first line. */
function storePlace(config: Config): string {
  return config.DATA_DIR === IN_MEMORY_DATA_DIR
    ? 'the embedded in-memory store (gone when the process stops)'
    : `the embedded LMDB store in ${resolve(config.DATA_DIR)} (kept across restarts)`;
}

function demoBanner(demo: DemoCredentials, config: Config, port: number, grpcPort: number): string {
  return [
    '',
    `shortlink is running on ${storePlace(config)} with a demo organization.`,
    'These secrets are shown once:',
    `  personal access token:   ${demo.token}`,
    `  organization secret key: ${demo.organizationKey}`,
    `  url group id:            ${demo.urlGroupId}`,
    `  link domain:             ${demo.domain}`,
    '',
    'Create a short link:',
    demoCurl(demo, `http://localhost:${port}`),
    '',
    'then follow its short_url (curl -i <short_url>).',
    '',
    `gRPC (shortlink.v1.ShortLinkService, with reflection) is on 127.0.0.1:${grpcPort}:`,
    demoGrpcurl(demo, `127.0.0.1:${grpcPort}`),
    '',
  ].join('\n');
}

/** The process entry point (`npm start`): the environment's configuration, every gateway. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  const service = await startService(config, logger);

  closeWithGrace({ delay: config.SHUTDOWN_TIMEOUT_MS, logger }, async ({ signal, err }) => {
    if (err) logger.error({ err }, 'shutting down after an error');
    else logger.info({ signal }, 'shutting down');
    await service.shutdown();
  });

  const { demo } = service;
  // Printed to stdout, not logged: the demo secrets are shown once, as the contract asks.
  if (demo)
    process.stdout.write(demoBanner(demo, config, service.http.port, service.grpc.port) + '\n');
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`shortlink failed to start: ${message}\n`);
  process.exit(1);
});
