import { createFileRegistry, fromBinary, type FileRegistry } from '@bufbuild/protobuf';
import { FileDescriptorProtoSchema, type FileDescriptorProto } from '@bufbuild/protobuf/wkt';
import { Metadata, type ChannelCredentials } from '@grpc/grpc-js';
import {
  ServerReflectionClient,
  type ServerReflectionRequest,
  type ServerReflectionResponse,
} from '../generated/grpc/reflection/v1/reflection';

/** What the reflection service could not give: an unknown service, a file it does not have. */
export class ReflectionError extends Error {}

/**
 * One reflection stream: each request is answered in order (gRPC server reflection v1), so a
 * request waits for the next response.
 */
function openReflection(address: string, credentials: ChannelCredentials, deadline: Date) {
  const client = new ServerReflectionClient(address, credentials);
  const stream = client.serverReflectionInfo(new Metadata(), { deadline });
  const waiting: Array<{ resolve(r: ServerReflectionResponse): void; reject(e: Error): void }> = [];
  stream.on('data', (response: ServerReflectionResponse) => waiting.shift()?.resolve(response));
  stream.on('error', (error: Error) => {
    for (const request of waiting.splice(0)) request.reject(error);
  });
  return {
    ask(request: Omit<ServerReflectionRequest, 'host'>): Promise<ServerReflectionResponse> {
      return new Promise((resolve, reject) => {
        waiting.push({ resolve, reject });
        stream.write({ host: '', ...request });
      });
    },
    close() {
      stream.end();
      client.close();
    },
  };
}

/** The files of one reflection answer, decoded; a refusal as a ReflectionError. */
function filesOf(response: ServerReflectionResponse): FileDescriptorProto[] {
  if (response.errorResponse) {
    throw new ReflectionError(response.errorResponse.errorMessage);
  }
  return (response.fileDescriptorResponse?.fileDescriptorProto ?? []).map((bytes) =>
    fromBinary(FileDescriptorProtoSchema, bytes),
  );
}

/**
 * The descriptors of the file declaring `service` and of every file it imports,
 * read from the server's reflection service, as a registry: what a client needs to encode a
 * request and decode an answer from JSON without the .proto files. An import the server did not
 * send with the file is asked for by name.
 */
export async function registryThroughReflection(
  address: string,
  credentials: ChannelCredentials,
  service: string,
  deadline: Date,
): Promise<FileRegistry> {
  const reflection = openReflection(address, credentials, deadline);
  try {
    const listing = await reflection.ask({ listServices: '' });
    const services = (listing.listServicesResponse?.service ?? []).map(({ name }) => name);
    if (!services.includes(service)) {
      throw new ReflectionError(
        `the server has no service ${service}; it has ${services.join(', ')}`,
      );
    }
    const files = new Map<string, FileDescriptorProto>();
    const add = (response: ServerReflectionResponse) => {
      for (const file of filesOf(response)) files.set(file.name, file);
    };
    add(await reflection.ask({ fileContainingSymbol: service }));
    for (let missing = importsMissing(files); missing.length > 0; missing = importsMissing(files)) {
      for (const name of missing) add(await reflection.ask({ fileByFilename: name }));
      const unsent = missing.filter((name) => !files.has(name));
      if (unsent.length > 0) throw new ReflectionError(`the server sent no ${unsent.join(', ')}`);
    }
    const resolve = (name: string) => files.get(name);
    // One registry per file (each with its imports), merged: every type the files declare.
    return createFileRegistry(
      ...[...files.values()].map((file) => createFileRegistry(file, resolve)),
    );
  } finally {
    reflection.close();
  }
}

function importsMissing(files: Map<string, FileDescriptorProto>): string[] {
  const names = [...files.values()].flatMap((file) => file.dependency);
  return [...new Set(names)].filter((name) => !files.has(name));
}
