import { credentials, Metadata, type CallOptions } from '@grpc/grpc-js';
import type { Core, Logger, ShortlinkMetrics } from '../../core';
import { silentLogger } from '../../core';
import {
  CreateShortLinkRequest,
  DisableShortLinkRequest,
  EnableShortLinkRequest,
  GetShortLinkRequest,
  ListShortLinksRequest,
  ShortLinkServiceClient,
  type CreateShortLinkResponse,
  type DisableShortLinkResponse,
  type EnableShortLinkResponse,
  type GetShortLinkResponse,
  type ListShortLinksResponse,
  type ResolveShortLinkRequest,
  type ResolveShortLinkResponse,
} from '../../gateway-grpc/generated/shortlink/v1/shortlink';
import { listenGrpc, type GrpcConnectionLimits, type RunningGrpcServer } from '../../gateway-grpc';
import { createTestCore, type CoreFixture, type TestCoreDeps } from './core-fixture';
import { outcomeOf, type CallOutcome } from './grpc-call';
import { bearer } from './grpc-metadata';

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
  /** The reading and governing RPCs, authenticated as `create` is; unset fields are proto3's. */
  get(
    request: Partial<GetShortLinkRequest>,
    auth?: string | Metadata,
  ): Promise<CallOutcome<GetShortLinkResponse>>;
  list(
    request: Partial<ListShortLinksRequest>,
    auth?: string | Metadata,
  ): Promise<CallOutcome<ListShortLinksResponse>>;
  disable(
    request: Partial<DisableShortLinkRequest>,
    auth?: string | Metadata,
  ): Promise<CallOutcome<DisableShortLinkResponse>>;
  enable(
    request: Partial<EnableShortLinkRequest>,
    auth?: string | Metadata,
  ): Promise<CallOutcome<EnableShortLinkResponse>>;
  close(): Promise<void>;
}

export type GrpcClientFixture = Omit<GrpcFixture, 'running'>;

/** The metadata of `auth`: a token becomes `authorization: Bearer <token>`. */
function metadataOf(auth: string | Metadata | undefined): Metadata {
  return typeof auth === 'string' ? bearer(auth) : (auth ?? new Metadata());
}

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
          metadataOf(auth),
          callOptions,
          callback,
        ),
      ),
    resolve: (request) =>
      outcomeOf<ResolveShortLinkResponse>((callback) =>
        client.resolveShortLink(request, new Metadata(), callback),
      ),
    get: (request, auth) =>
      outcomeOf<GetShortLinkResponse>((callback) =>
        client.getShortLink(GetShortLinkRequest.fromPartial(request), metadataOf(auth), callback),
      ),
    list: (request, auth) =>
      outcomeOf<ListShortLinksResponse>((callback) =>
        client.listShortLinks(
          ListShortLinksRequest.fromPartial(request),
          metadataOf(auth),
          callback,
        ),
      ),
    disable: (request, auth) =>
      outcomeOf<DisableShortLinkResponse>((callback) =>
        client.disableShortLink(
          DisableShortLinkRequest.fromPartial(request),
          metadataOf(auth),
          callback,
        ),
      ),
    enable: (request, auth) =>
      outcomeOf<EnableShortLinkResponse>((callback) =>
        client.enableShortLink(
          EnableShortLinkRequest.fromPartial(request),
          metadataOf(auth),
          callback,
        ),
      ),
    close: () => {
      client.close();
      return Promise.resolve();
    },
  };
}

export interface GrpcOptions {
  logger?: Logger;
  shutdownTimeoutMs?: number;
  trustProxy?: string;
  metrics?: ShortlinkMetrics;
  connectionLimits?: Partial<GrpcConnectionLimits>;
}

/** A real gRPC server on 127.0.0.1, port 0, serving `core`, and a generated client for it. */
export async function startGrpc(core: Core, options: GrpcOptions = {}): Promise<GrpcFixture> {
  const running = await listenGrpc(core, {
    port: 0,
    host: '127.0.0.1',
    trustProxy: options.trustProxy,
    logger: options.logger ?? silentLogger,
    shutdownTimeoutMs: options.shutdownTimeoutMs ?? 2000,
    metrics: options.metrics,
    connectionLimits: options.connectionLimits,
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

/** A test core (`createTestCore(deps)`) and a gRPC gateway serving it. */
export async function startGrpcOnTestCore(
  deps: TestCoreDeps = {},
  options: GrpcOptions = {},
): Promise<{ f: CoreFixture; grpc: GrpcFixture }> {
  const f = await createTestCore(deps);
  return { f, grpc: await startGrpc(f.core, options) };
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
