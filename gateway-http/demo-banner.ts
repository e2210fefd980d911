import { demoCurl, demoGrpcurl, type DemoCredentials } from '../core';

/** What `npm start` prints once on the embedded default: the demo's secrets and commands. */
export function demoBanner(demo: DemoCredentials, port: number, grpcPort: number): string {
  return [
    '',
    'shortlink is running on the embedded in-memory store with a demo organization:',
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
