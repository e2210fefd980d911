import { ReflectionService } from '@grpc/reflection';
import { fileDescriptorProtosBase64 } from './generated/descriptor-set';

type PackageDefinition = ConstructorParameters<typeof ReflectionService>[0];

/**
 * Server reflection over every file of proto/ (shortlink.v1, google.rpc, grpc.health.v1,
 * grpc.reflection.v1), so grpcurl and similar tools work without the .proto files. The
 * descriptors are the ones `buf build` compiled, embedded by `npm run proto:generate`;
 * @grpc/reflection reads only the `fileDescriptorProtos` of each package definition entry.
 */
export function createReflectionService(): ReflectionService {
  const fileDescriptorProtos = fileDescriptorProtosBase64.map((file) =>
    Buffer.from(file, 'base64'),
  );
  const definition = {
    'shortlink.v1': { fileDescriptorProtos },
  } as unknown as PackageDefinition;
  return new ReflectionService(definition);
}
