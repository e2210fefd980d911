import { resolve } from 'node:path';
import {
  demoCurl,
  demoGrpcurl,
  IN_MEMORY_DATA_DIR,
  type Config,
  type DemoCredentials,
} from '../core';

/** Where the demo lives, for the banner's first line. */
function storePlace(config: Config): string {
  return config.DATA_DIR === IN_MEMORY_DATA_DIR
    ? 'the embedded in-memory store (gone when the process stops)'
    : `the embedded LMDB store in ${resolve(config.DATA_DIR)} (kept across restarts)`;
}

/** What `npm start` prints once on an empty embedded store: the demo's secrets and commands. */
export function demoBanner(
  demo: DemoCredentials,
  config: Config,
  port: number,
  grpcPort: number,
): string {
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
