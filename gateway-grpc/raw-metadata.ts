import type { IncomingHttpHeaders } from 'node:http2';
import type { Server } from '@grpc/grpc-js';
import { AUTHORIZATION_METADATA } from './call-context';
import { IDEMPOTENCY_KEY_METADATA } from './idempotency-metadata';

/** A text metadata value grpc-js accepts: printable ASCII and space. */
const GRPC_TEXT_VALUE = /^[ -~]*$/;
const OUTSIDE_GRPC_TEXT = /[^ -~]/g;

interface StreamEvents {
  prependListener(
    event: 'stream',
    listener: (
      stream: unknown,
      headers: IncomingHttpHeaders,
      flags: number,
      rawHeaders: readonly string[],
    ) => void,
  ): unknown;
}

/**
 * `value` with each character grpc-js would refuse replaced by `standIn`, a character that keeps
 * the value malformed for the core: a space in an `idempotency-key` (a key has none; `?` would be
 * a valid key character), `?` in `authorization` (a space would make `Bearer\u00a0<token>`, or a
 * token with a trailing no-break space, a valid header, which over REST is malformed, code 10).
 */
const sayable = (value: string, standIn: ' ' | '?') =>
  GRPC_TEXT_VALUE.test(value) ? value : value.replace(OUTSIDE_GRPC_TEXT, standIn);
const sayableKey = (value: string) => sayable(value, ' ');

/** Every value of `name` in node's raw header list (name, value, name, value, ...). */
function rawValues(rawHeaders: readonly string[], name: string): string[] {
  const values: string[] = [];
  for (let at = 0; at + 1 < rawHeaders.length; at += 2) {
    if (rawHeaders[at]?.toLowerCase() === name) values.push(rawHeaders[at + 1] as string);
  }
  return values;
}

/**
 * grpc-js drops a metadata value with a control or non-ASCII character, logging an error that
 * holds the value, so an `idempotency-key` holding one would reach the core as no key at all and
 * the create would run without its protection, and such an `authorization` would be "missing"
 * (code 3, where REST says malformed, 10) after its token was logged. HTTP/2 lets any client send
 * such a value, so before grpc-js reads the headers this listener replaces each such character of
 * those two values: still malformed for the core (codes 27 and 10), and sayable in gRPC metadata.
 * It also hands grpc-js a key sent more than once as its separate values (node joins them with
 * ", "), so the core can say so (code 27) instead of finding a space in one joined key.
 *
 * grpc-js offers no public hook on the raw headers; its HTTP/2 servers are reached through the
 * private `http2Servers` map (grpc-js 1.14). Answers false when that map is not there, so the
 * caller can log it; the test suite sends such keys through a raw HTTP/2 client.
 */
export function keepMalformedMetadata(server: Server): boolean {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  if (!(servers instanceof Map)) return false;
  for (const http2Server of servers.keys() as IterableIterator<StreamEvents>) {
    http2Server.prependListener('stream', (_stream, headers, _flags, rawHeaders) => {
      const authorization = headers[AUTHORIZATION_METADATA];
      if (typeof authorization === 'string') {
        headers[AUTHORIZATION_METADATA] = sayable(authorization, '?');
      }
      const value = headers[IDEMPOTENCY_KEY_METADATA];
      if (typeof value !== 'string') return;
      // Joined values hold ", "; a valid key has no space, so only then are the lines read.
      const values = value.includes(', ')
        ? rawValues(rawHeaders, IDEMPOTENCY_KEY_METADATA)
        : [value];
      headers[IDEMPOTENCY_KEY_METADATA] =
        values.length > 1 ? values.map(sayableKey) : sayableKey(value);
    });
  }
  return true;
}
