import { credentials, Metadata, type ServiceError, type StatusObject } from '@grpc/grpc-js';
import {
  CreateShortLinkRequest,
  ShortLinkServiceClient,
  type CreateShortLinkResponse,
} from '../../../gateway-grpc/generated/shortlink/v1/shortlink';

export interface GrpcOutcome {
  response: CreateShortLinkResponse | undefined;
  error: ServiceError | undefined;
  status: StatusObject;
}

export function grpcClient(port: number): ShortLinkServiceClient {
  return new ShortLinkServiceClient(`127.0.0.1:${port}`, credentials.createInsecure());
}

export function bearerMetadata(authorization: string | undefined): Metadata {
  const metadata = new Metadata();
  if (authorization !== undefined) metadata.set('authorization', authorization);
  return metadata;
}

/** One CreateShortLink call; resolves with its outcome once the status has arrived. */
export function grpcCreate(
  client: ShortLinkServiceClient,
  request: Partial<CreateShortLinkRequest>,
  metadata: Metadata,
  deadlineMs = 60_000,
): Promise<GrpcOutcome> {
  return new Promise((resolve) => {
    let response: CreateShortLinkResponse | undefined;
    let error: ServiceError | undefined;
    const call = client.createShortLink(
      CreateShortLinkRequest.fromPartial(request),
      metadata,
      { deadline: Date.now() + deadlineMs },
      (callError, callResponse) => {
        error = callError ?? undefined;
        response = callResponse;
      },
    );
    call.on('status', (status: StatusObject) => resolve({ response, error, status }));
  });
}
