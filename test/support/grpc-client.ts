import type { Metadata } from '@grpc/grpc-js';
import { credentials } from '@grpc/grpc-js';
import {
  CreateShortLinkRequest,
  ShortLinkServiceClient,
  type CreateShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { outcomeOf, type CallOutcome } from './grpc-call';

export function grpcClient(port: number): ShortLinkServiceClient {
  return new ShortLinkServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
}

/**
 * A client on its own connection (grpc-js shares one per target unless told not to), so that
 * node's cluster hands each client to a worker of its own choosing.
 */
export function ownConnectionClient(port: number): ShortLinkServiceClient {
  return new ShortLinkServiceClient(`127.0.0.1:${port}`, credentials.createInsecure(), {
    'grpc.use_local_subchannel_pool': 1,
  });
}

/** One CreateShortLink call with a deadline; resolves with its outcome once it has ended. */
export function grpcCreate(
  client: ShortLinkServiceClient,
  request: Partial<CreateShortLinkRequest>,
  metadata: Metadata,
  deadlineMs = 60_000,
): Promise<CallOutcome<CreateShortLinkResponse>> {
  return outcomeOf<CreateShortLinkResponse>((callback) =>
    client.createShortLink(
      CreateShortLinkRequest.fromPartial(request),
      metadata,
      { deadline: Date.now() + deadlineMs },
      callback,
    ),
  );
}
