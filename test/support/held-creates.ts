import type { Agent } from 'node:http';
import type { ShortLinkServiceClient } from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import type { ChildService } from './child-service';
import { grpcCreate } from './grpc-client';
import { authorizationMetadata } from './grpc-metadata';
import { sendRaw } from './raw-http';

/**
 * Sends creates for the demo organization of a child service, all at once, without waiting:
 * `counts.rest` over REST (aliases rest-0, rest-1, ...) and `counts.grpc` over gRPC (grpc-0, ...)
 * spread over `clients`. Each promise settles with the service's answer (tests hold the creates
 * at a reputation gate, then stop the service).
 */
export function sendCreatesOnBothGateways(
  s: ChildService,
  counts: { rest: number; grpc: number },
  clients: readonly ShortLinkServiceClient[],
  agent?: Agent,
) {
  const link = (alias: string) => ({ url: `https://example.com/${alias}`, alias });
  const rest = Array.from({ length: counts.rest }, (_, i) =>
    sendRaw({
      agent,
      port: s.httpPort,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${s.token}` },
      body: JSON.stringify({
        organization_key: s.organizationKey,
        url_group_id: s.urlGroupId,
        ...link(`rest-${i}`),
      }),
    }),
  );
  const metadata = authorizationMetadata(`Bearer ${s.token}`);
  const grpc = Array.from({ length: counts.grpc }, (_, i) =>
    grpcCreate(
      clients[i % clients.length]!,
      { organizationKey: s.organizationKey, urlGroupId: s.urlGroupId, ...link(`grpc-${i}`) },
      metadata,
    ),
  );
  return { rest, grpc };
}
