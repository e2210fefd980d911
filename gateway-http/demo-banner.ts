import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { demoCurl, demoGrpcurl, type DemoCredentials } from '../core';
import { IN_MEMORY_DATA_DIR, type Config } from '../core/runtime';

/** Where the demo lives, for the banner's first line. */
function storePlace(config: Config): string {
  return config.DATA_DIR === IN_MEMORY_DATA_DIR
    ? 'the embedded in-memory store (gone when the process stops)'
    : `the embedded LMDB store in ${resolve(config.DATA_DIR)} (kept across restarts)`;
}

/** Addresses a server bound to answers on every interface: a client on this host dials loopback. */
const WILDCARD_HOSTS = new Set(['0.0.0.0', '::']);

/**
 * The address a client on this host dials to reach a server bound to `host` (HOST): loopback for
 * a wildcard, an IPv6 address in brackets, else `host` itself. With HOST=::1 the gRPC port answers
 * on [::1] only, where the banner's 127.0.0.1 was refused.
 */
function dialHost(host: string): string {
  if (WILDCARD_HOSTS.has(host)) return '127.0.0.1';
  return isIP(host) === 6 ? `[${host}]` : host;
}

function curlHost(host: string): string {
  const dial = dialHost(host);
  return dial === '127.0.0.1' ? 'localhost' : dial;
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
    // localhost (the demo's link domain) where loopback answers; another HOST as it is bound.
    demoCurl(demo, `http://${curlHost(config.HOST)}:${port}`),
    '',
    'then follow its short_url (curl -i <short_url>).',
    '',
    `gRPC (shortlink.v1.ShortLinkService, with reflection) is on ${dialHost(config.HOST)}:${grpcPort}:`,
    demoGrpcurl(demo, `${dialHost(config.HOST)}:${grpcPort}`),
    '',
  ].join('\n');
}
