import type { IncomingMessage } from 'node:http';
import type { Metadata, ServerUnaryCall } from '@grpc/grpc-js';
import proxyaddr from 'proxy-addr';
import type { TrustProxy } from '../core/runtime';

/** The metadata key of the token (`authorization: Bearer <token>`). */
export const AUTHORIZATION_METADATA = 'authorization';

/** The `authorization` metadata value (`Bearer <token>`), as the core expects it; undefined if absent. */
export function authorizationOf(metadata: Metadata): string | undefined {
  const [first] = metadata.get(AUTHORIZATION_METADATA);
  // Only `-bin` keys carry Buffers; a Buffer here is not a usable header, so it counts as absent.
  return typeof first === 'string' ? first : undefined;
}

/**
 * The peer's address from `call.getPeer()` (`<address>:<port>`, IPv6 with or without
 * brackets): the port is dropped so every connection from one address shares the auth-failure
 * budget. It is the client's address unless TRUST_PROXY names a proxy in front (clientAddressOf).
 */
export function peerAddressOf(peer: string): string | undefined {
  const match = /^\[?(.+?)\]?:(\d+)$/.exec(peer);
  if (match) return match[1];
  return peer === '' || peer === 'unknown' ? undefined : peer;
}

/**
 * The client's address by the REST gateway's rule: with TRUST_PROXY, the first address of the
 * `x-forwarded-for` metadata (read from the peer backwards) that is not a trusted proxy, as
 * proxy-addr (express's own) decides it; without, the peer.
 */
export function clientAddressOf(
  call: Pick<ServerUnaryCall<unknown, unknown>, 'getPeer' | 'metadata'>,
  trustProxy: TrustProxy | undefined,
): string | undefined {
  const peer = peerAddressOf(call.getPeer());
  if (peer === undefined || trustProxy === undefined) return peer;
  const forwardedFor = call.metadata
    .get('x-forwarded-for')
    .filter((value): value is string => typeof value === 'string')
    .join(', ');
  // proxy-addr reads only these two fields of a request.
  const request = { headers: { 'x-forwarded-for': forwardedFor }, socket: { remoteAddress: peer } };
  return proxyaddr(request as unknown as IncomingMessage, trustProxy);
}
