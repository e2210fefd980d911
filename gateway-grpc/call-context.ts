import type { Metadata } from '@grpc/grpc-js';

/** The `authorization` metadata value (`Bearer <token>`), as the core expects it; undefined if absent. */
export function authorizationOf(metadata: Metadata): string | undefined {
  const [first] = metadata.get('authorization');
  // Only `-bin` keys carry Buffers; a Buffer here is not a usable header, so it counts as absent.
  return typeof first === 'string' ? first : undefined;
}

/**
 * The client's address from `call.getPeer()` (`<address>:<port>`, IPv6 with or without
 * brackets): the port is dropped so every connection from one address shares the auth-failure
 * budget. REST keys the same budget by express's `req.ip`, which is the socket's address unless
 * TRUST_PROXY names a proxy in front; then it is the address that proxy forwarded, while gRPC
 * always sees the peer.
 */
export function clientAddressOf(peer: string): string | undefined {
  const match = /^\[?(.+?)\]?:(\d+)$/.exec(peer);
  if (match) return match[1];
  return peer === '' || peer === 'unknown' ? undefined : peer;
}
