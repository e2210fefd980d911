import {
  fromBinary,
  fromJson,
  toBinary,
  toJson,
  type DescMessage,
  type DescMethod,
  type FileRegistry,
  type JsonValue,
} from '@bufbuild/protobuf';
import { Client, type ChannelCredentials, type Metadata, type ServiceError } from '@grpc/grpc-js';

/** A call that could not be made as asked (an unknown method, a body that does not fit). */
export class CallUsageError extends Error {}

/** `CreateShortLink`, `shortlink.v1.ShortLinkService/CreateShortLink` or `….ShortLinkService.CreateShortLink`. */
export function splitMethodName(
  name: string,
  defaultService: string,
): { service: string; method: string } {
  const cut = name.includes('/') ? name.lastIndexOf('/') : name.lastIndexOf('.');
  if (cut < 0) return { service: defaultService, method: name };
  return { service: name.slice(0, cut), method: name.slice(cut + 1) };
}

/** The unary method `method` of `service` as the registry describes it. */
export function findUnaryMethod(
  registry: FileRegistry,
  service: string,
  method: string,
): DescMethod {
  const described = registry.getService(service);
  if (!described) throw new CallUsageError(`the server has no service ${service}`);
  const found = described.methods.find((candidate) => candidate.name === method);
  const names = described.methods.map((candidate) => candidate.name).join(', ');
  if (!found) throw new CallUsageError(`${service} has no method ${method}; it has ${names}`);
  if (found.methodKind !== 'unary') {
    throw new CallUsageError(
      `${service}/${method} is a streaming method; only unary calls are made`,
    );
  }
  return found;
}

/** The request message from its JSON (proto3 JSON: `organization_key` or `organizationKey`). */
function requestBytes(input: DescMessage, body: string, registry: FileRegistry): Uint8Array {
  let json: JsonValue;
  try {
    json = JSON.parse(body) as JsonValue;
  } catch (error) {
    throw new CallUsageError(`the body is not JSON: ${(error as Error).message}`);
  }
  try {
    return toBinary(input, fromJson(input, json, { registry }));
  } catch (error) {
    throw new CallUsageError(`the body is not a ${input.typeName}: ${(error as Error).message}`);
  }
}

/**
 * Calls a unary method with a JSON body and resolves with the answer as proto3 JSON (64-bit
 * integers as strings, as grpcurl prints them), or rejects with the call's ServiceError.
 */
export function callUnary(options: {
  address: string;
  credentials: ChannelCredentials;
  registry: FileRegistry;
  method: DescMethod;
  body: string;
  metadata: Metadata;
  deadline: Date;
}): Promise<JsonValue> {
  const { method, registry } = options;
  const request = requestBytes(method.input, options.body, registry);
  const client = new Client(options.address, options.credentials);
  return new Promise<JsonValue>((resolve, reject: (error: ServiceError) => void) => {
    client.makeUnaryRequest(
      `/${method.parent.typeName}/${method.name}`,
      (bytes: Uint8Array) => Buffer.from(bytes),
      (bytes: Buffer) => fromBinary(method.output, bytes),
      request,
      options.metadata,
      { deadline: options.deadline },
      (error, response) => {
        if (error || !response) reject(error as ServiceError);
        else resolve(toJson(method.output, response, { registry }));
      },
    );
  }).finally(() => client.close());
}
