import {
  credentials,
  Metadata,
  type CallOptions,
  type ServiceError,
  type StatusObject,
} from '@grpc/grpc-js';
import type { Core, Logger } from '../../core';
import { silentLogger } from '../../core';
import {
  CreateShortLinkRequest,
  ShortLinkServiceClient,
  type CreateShortLinkResponse,
  type ResolveShortLinkRequest,
  type ResolveShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { listenGrpc, type RunningGrpcServer } from '../../gateway-grpc';

/** What one unary call ended with: the response or the error, and the status with its trailers. */
export interface CallOutcome<TResponse> {
  response: TResponse | undefined;
  error: ServiceError | undefined;
  status: StatusObject;
}

export interface GrpcFixture {
  running: RunningGrpcServer;
  address: string;
  client: ShortLinkServiceClient;
  /** CreateShortLink with `authorization: Bearer <token>` for a token, or the metadata given. */
  create(
    request: Partial<CreateShortLinkRequest>,
    auth?: string | Metadata,
    options?: Partial<CallOptions>,
  ): Promise<CallOutcome<CreateShortLinkResponse>>;
  resolve(request: ResolveShortLinkRequest): Promise<CallOutcome<ResolveShortLinkResponse>>;
  close(): Promise<void>;
}

export function bearer(token: string): Metadata {
  const metadata = new Metadata();
  metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

/** Resolves once the call's status (with its trailers) has arrived, whatever it is. */
export function outcomeOf<TResponse>(
  start: (callback: (error: ServiceError | null, response?: TResponse) => void) => {
    on(event: 'status', listener: (status: StatusObject) => void): unknown;
  },
): Promise<CallOutcome<TResponse>> {
  return new Promise((resolve) => {
    let response: TResponse | undefined;
    let error: ServiceError | undefined;
    const call = start((callError, callResponse) => {
      error = callError ?? undefined;
      response = callResponse;
    });
    call.on('status', (status) => resolve({ response, error, status }));
  });
}

export type GrpcClientFixture = Omit<GrpcFixture, 'running'>;

/** A generated ShortLinkService client of the server at `address` (`host:port`). */
export function connectGrpc(address: string): GrpcClientFixture {
  const client = new ShortLinkServiceClient(address, credentials.createInsecure());
  return {
    address,
    client,
    create: (request, auth, callOptions = {}) =>
      outcomeOf<CreateShortLinkResponse>((callback) =>
        client.createShortLink(
          CreateShortLinkRequest.fromPartial(request),
          typeof auth === 'string' ? bearer(auth) : (auth ?? new Metadata()),
          callOptions,
          callback,
        ),
      ),
    resolve: (request) =>
      outcomeOf<ResolveShortLinkResponse>((callback) =>
        client.resolveShortLink(request, new Metadata(), callback),
      ),
    close: () => {
      client.close();
      return Promise.resolve();
    },
  };
}

/** A real gRPC server on 127.0.0.1, port 0, serving `core`, and a generated client for it. */
export async function startGrpc(
  core: Core,
  options: { logger?: Logger; shutdownTimeoutMs?: number; trustProxy?: string } = {},
): Promise<GrpcFixture> {
  const running = await listenGrpc(core, {
    port: 0,
    host: '127.0.0.1',
    trustProxy: options.trustProxy,
    logger: options.logger ?? silentLogger,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 2000,
  });
  const connection = connectGrpc(`127.0.0.1:${running.port}`);
  return {
    ...connection,
    running,
    close: async () => {
      await connection.close();
      await running.close();
    },
  };
}

/** A metadata value as text (the first one), or undefined. */
export function metadataText(metadata: Metadata, key: string): string | undefined {
  const [value] = metadata.get(key);
  return value === undefined ? undefined : value.toString();
}

/** A valid CreateShortLink request for the core fixture's organization, group "1". */
export function validRequest(
  f: { organizationKey: string },
  overrides: Partial<CreateShortLinkRequest> = {},
): Partial<CreateShortLinkRequest> {
  return {
    organizationKey: f.organizationKey,
    urlGroupId: '1',
    url: 'https://example.com/some/long/path?q=1',
    ...overrides,
  };
}
