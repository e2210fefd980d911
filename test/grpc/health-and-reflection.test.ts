import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { fromBinary } from '@bufbuild/protobuf';
import { BinaryReader } from '@bufbuild/protobuf/wire';
import { FileDescriptorProtoSchema } from '@bufbuild/protobuf/wkt';
import type { HealthCheckResponse } from '../../gateway-grpc/generated/grpc/health/v1/health';
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  HealthClient,
} from '../../gateway-grpc/generated/grpc/health/v1/health';
import {
  ServerReflectionClient,
  type ServerReflectionResponse,
} from '../../gateway-grpc/generated/grpc/reflection/v1/reflection';
import { startGrpcOnTestCore, type GrpcFixture } from '../support/grpc-fixture';

function check(client: HealthClient, service: string) {
  return new Promise<{ error: ServiceError | null; response?: HealthCheckResponse }>((resolve) =>
    client.check({ service }, (error, response) => resolve({ error, response })),
  );
}

/** One request on the reflection stream, as grpcurl sends it. */
function reflect(
  client: ServerReflectionClient,
  request: { listServices?: string; fileContainingSymbol?: string },
): Promise<ServerReflectionResponse> {
  return new Promise((resolve, reject) => {
    const stream = client.serverReflectionInfo(new Metadata());
    stream.once('data', (response: ServerReflectionResponse) => {
      resolve(response);
      stream.end();
    });
    stream.once('error', reject);
    stream.write({ host: '', ...request });
  });
}

/** The `name` (field 1) of an encoded google.protobuf.FileDescriptorProto. */
function fileName(encoded: Uint8Array): string {
  const reader = new BinaryReader(encoded);
  while (reader.pos < reader.len) {
    const [field, wireType] = reader.tag();
    if (field === 1) return reader.string();
    reader.skip(wireType);
  }
  throw new Error('no name in the file descriptor');
}

describe('gRPC health and reflection', () => {
  let grpc: GrpcFixture;
  let health: HealthClient;
  let reflection: ServerReflectionClient;

  beforeAll(async () => {
    ({ grpc } = await startGrpcOnTestCore());
    health = new HealthClient(grpc.address, credentials.createInsecure());
    reflection = new ServerReflectionClient(grpc.address, credentials.createInsecure());
  });
  afterAll(async () => {
    health.close();
    reflection.close();
    await grpc.close();
  });

  it('reports SERVING for the server and for shortlink.v1.ShortLinkService', async () => {
    for (const service of ['', 'shortlink.v1.ShortLinkService']) {
      const { error, response } = await check(health, service);
      expect(error).toBeNull();
      expect(response!.status).toBe(ServingStatus.SERVING);
    }
    const unknown = await check(health, 'no.such.Service');
    expect(unknown.error?.code).toBe(status.NOT_FOUND);
  });

  it('lists the services through reflection', async () => {
    const response = await reflect(reflection, { listServices: '' });
    const names = response.listServicesResponse!.service.map((service) => service.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'shortlink.v1.ShortLinkService',
        'grpc.health.v1.Health',
        'grpc.reflection.v1.ServerReflection',
      ]),
    );
  });

  it('serves the file describing the service, with its dependencies resolvable', async () => {
    const response = await reflect(reflection, {
      fileContainingSymbol: 'shortlink.v1.ShortLinkService',
    });
    const files = response.fileDescriptorResponse!.fileDescriptorProto.map(fileName);
    expect(files).toContain('shortlink/v1/shortlink.proto');

    const errorInfo = await reflect(reflection, { fileContainingSymbol: 'google.rpc.ErrorInfo' });
    expect(errorInfo.fileDescriptorResponse!.fileDescriptorProto.map(fileName)).toContain(
      'google/rpc/error_details.proto',
    );
  });

  it('describes every RPC of ShortLinkService and the types they use', async () => {
    const response = await reflect(reflection, {
      fileContainingSymbol: 'shortlink.v1.ShortLinkService',
    });
    const file = response
      .fileDescriptorResponse!.fileDescriptorProto.map((bytes) =>
        fromBinary(FileDescriptorProtoSchema, bytes),
      )
      .find((descriptor) => descriptor.name === 'shortlink/v1/shortlink.proto')!;
    const service = file.service.find((candidate) => candidate.name === 'ShortLinkService')!;
    expect(
      service.method.map((method) => [method.name, method.inputType, method.outputType]),
    ).toEqual([
      [
        'CreateShortLink',
        '.shortlink.v1.CreateShortLinkRequest',
        '.shortlink.v1.CreateShortLinkResponse',
      ],
      [
        'ResolveShortLink',
        '.shortlink.v1.ResolveShortLinkRequest',
        '.shortlink.v1.ResolveShortLinkResponse',
      ],
      ['GetShortLink', '.shortlink.v1.GetShortLinkRequest', '.shortlink.v1.GetShortLinkResponse'],
      [
        'ListShortLinks',
        '.shortlink.v1.ListShortLinksRequest',
        '.shortlink.v1.ListShortLinksResponse',
      ],
      [
        'DisableShortLink',
        '.shortlink.v1.DisableShortLinkRequest',
        '.shortlink.v1.DisableShortLinkResponse',
      ],
      [
        'EnableShortLink',
        '.shortlink.v1.EnableShortLinkRequest',
        '.shortlink.v1.EnableShortLinkResponse',
      ],
      [
        'UpdateShortLink',
        '.shortlink.v1.UpdateShortLinkRequest',
        '.shortlink.v1.UpdateShortLinkResponse',
      ],
      [
        'ListShortLinkHistory',
        '.shortlink.v1.ListShortLinkHistoryRequest',
        '.shortlink.v1.ListShortLinkHistoryResponse',
      ],
      [
        'GetShortLinkVisits',
        '.shortlink.v1.GetShortLinkVisitsRequest',
        '.shortlink.v1.GetShortLinkVisitsResponse',
      ],
    ]);
    expect(file.enumType.map((type) => type.name)).toContain('LinkState');
    const shortLink = file.messageType.find((message) => message.name === 'ShortLink')!;
    const createdAt = shortLink.field.find((field) => field.name === 'created_at')!;
    expect(createdAt.typeName).toBe('.google.protobuf.Timestamp');
    expect(file.dependency).toContain('google/protobuf/timestamp.proto');

    // The Timestamp's file is served too, so a tool can decode created_at and disabled_at.
    const timestamp = await reflect(reflection, {
      fileContainingSymbol: 'google.protobuf.Timestamp',
    });
    expect(timestamp.fileDescriptorResponse!.fileDescriptorProto.map(fileName)).toContain(
      'google/protobuf/timestamp.proto',
    );
  });
});
