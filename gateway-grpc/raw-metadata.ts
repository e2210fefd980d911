import type { IncomingHttpHeaders } from 'node:http2';
import type { Server } from '@grpc/grpc-js';
import { IDEMPOTENCY_KEY_METADATA } from './idempotency-metadata';

/** A text metadata value grpc-js accepts: printable ASCII and space. */
const GRPC_TEXT_VALUE = /^[ -~]*$/;
const OUTSIDE_GRPC_TEXT = /[^ -~]/g;

interface StreamEvents {
  prependListener(
    event: 'stream',
    listener: (stream: unknown, headers: IncomingHttpHeaders) => void,
  ): unknown;
}

/**
 * grpc-js drops a metadata value with a control or non-ASCII character, logging only an error,
 * so an `idempotency-key` holding one would reach the core as no key at all and the create would
 * run without its protection. HTTP/2 lets any client send such a value, so before grpc-js reads
 * the headers this listener replaces each such character of that one key with a space: still
 * malformed for the core (code 27), and sayable in gRPC metadata.
 *
 * grpc-js offers no public hook on the raw headers; its HTTP/2 servers are reached through the
 * private `http2Servers` map (grpc-js 1.14). Answers false when that map is not there, so the
 * caller can log it; the test suite sends such keys through a raw HTTP/2 client.
 */
export function keepMalformedIdempotencyKeys(server: Server): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return false;
  for (const http2Server of servers.keys() as IterableIterator<StreamEvents>) {
    http2Server.prependListener('stream', (_stream, headers) => {
      const value = headers[IDEMPOTENCY_KEY_METADATA];
      if (typeof value === 'string' && !GRPC_TEXT_VALUE.test(value)) {
        headers[IDEMPOTENCY_KEY_METADATA] = value.replace(OUTSIDE_GRPC_TEXT, ' ');
      }
    });
  }
  return true;
}
