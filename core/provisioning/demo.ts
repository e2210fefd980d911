import { generateOrganizationKey } from '../auth/secrets';
import type { Provisioner } from './provisioner';

export interface DemoCredentials {
  organizationKey: string;
  token: string;
  urlGroupId: string;
  domain: string;
}

/**
 * The out-of-the-box demo: an organization whose link domain is this server itself
 * (`localhost:<port>`, scheme http), group "1", and a user with a fresh token.
 */
export async function provisionDemo(
  provisioner: Provisioner,
  port: number,
): Promise<DemoCredentials> {
  // Given, so that the demo always has a key to print (an existing organization would keep its
  // own, which cannot be shown again).
  const secretKey = generateOrganizationKey();
  const { organization } = await provisioner.saveOrganization({
    id: 'demo',
    name: 'Demo organization',
    domain: `localhost:${port}`,
    scheme: 'http',
    secretKey,
  });
  await provisioner.saveGroup({ organizationId: organization.id, apiId: '1', name: 'Default' });
  await provisioner.saveUser({ id: 'demo', name: 'Demo user', organizations: [organization.id] });
  const { token } = await provisioner.issueToken('demo');
  return {
    organizationKey: secretKey,
    token: token as string,
    urlGroupId: '1',
    domain: organization.domain,
  };
}

/** The JSON body of a create with the demo credentials (the same over REST and gRPC). */
function demoCreateBody(credentials: DemoCredentials): string {
  return JSON.stringify({
    organization_key: credentials.organizationKey,
    url_group_id: credentials.urlGroupId,
    url: 'https://example.com/a/very/long/path',
  });
}

export function demoCurl(credentials: DemoCredentials, baseUrl: string): string {
  const body = demoCreateBody(credentials);
  return [
    `curl -s -X POST ${baseUrl}/api/create \\`,
    `  -H 'Authorization: Bearer ${credentials.token}' \\`,
    `  -H 'Content-Type: application/json' \\`,
    `  -d '${body}'`,
  ].join('\n');
}

export function demoGrpcurl(credentials: DemoCredentials, address: string): string {
  return [
    `grpcurl -plaintext -H 'authorization: Bearer ${credentials.token}' \\`,
    `  -d '${demoCreateBody(credentials)}' \\`,
    `  ${address} shortlink.v1.ShortLinkService/CreateShortLink`,
  ].join('\n');
}
