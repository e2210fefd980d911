import type { ServiceDefinition } from '@grpc/grpc-js';
import { UndecodableBody } from '../core';

/**
 * What a handler receives instead of a request whose bytes are not a valid message. grpc-js
 * would otherwise answer INTERNAL before the gateway sees the call; with this the core reports
 * it (code 20, INVALID_ARGUMENT) at its place in the precedence, as REST does for broken JSON.
 */
export const UNDECODABLE_REQUEST = new UndecodableBody(
  'BODY_INVALID',
  'The request message could not be decoded.',
);

export function isUndecodable(request: unknown): request is UndecodableBody {
  return request === UNDECODABLE_REQUEST;
}

/** The same service with request deserializers that never throw. */
export function withTolerantDecoding<T extends ServiceDefinition>(definition: T): T {
  const methods = Object.entries(definition).map(([name, method]) => [
    name,
    {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        try {
          return method.requestDeserialize(bytes);
        } catch {
          return UNDECODABLE_REQUEST;
        }
      },
    },
  ]);
  return Object.fromEntries(methods) as T;
}
