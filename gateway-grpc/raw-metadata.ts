import type { IncomingHttpHeaders, ServerHttp2Stream } from 'node:http2';
import { AUTHORIZATION_METADATA } from './call-context';
import { IDEMPOTENCY_KEY_METADATA } from './idempotency-metadata';

/** A text metadata value grpc-js accepts: printable ASCII and space. */
const GRPC_TEXT_VALUE = /^[ -~]*$/;
const OUTSIDE_GRPC_TEXT = /[^ -~]/g;

interface StreamEvents {
  prependListener(
    event: 'stream',
    listener: (
      stream: ServerHttp2Stream,
      headers: IncomingHttpHeaders,
      flags: number,
      rawHeaders: readonly string[],
    ) => void,
  ): unknown;
}

/** The idempotency-key values of a call as its client sent them, when node dropped one. */
type DroppedKeyValuesOf = (stream: ServerHttp2Stream) => readonly string[] | undefined;

/**
 * `value` with each character grpc-js would refuse replaced by `standIn`, a character that keeps
 * the value malformed for the core: a space in an `idempotency-key` (a key has none; `?` would be
 * a valid key character), `?` in `authorization` (a space would make `Bearer\u00a0<token>`, or a
 * token with a trailing no-break space, a valid header, which over REST is malformed,
 * TOKEN_MALFORMED).
 */
const sayable = (value: string, standIn: ' ' | '?') =>
  GRPC_TEXT_VALUE.test(value) ? value : value.replace(OUTSIDE_GRPC_TEXT, standIn);
const sayableKey = (value: string) => sayable(value, ' ');
/** A value without its surrounding spaces and tabs, as node's HTTP/1 parser gives REST's headers. */
const withoutSurroundingSpace = (value: string) => value.replace(/^[ \t]+|[ \t]+$/g, '');

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
 * (TOKEN_MISSING, where REST says malformed, TOKEN_MALFORMED) after its token was logged. HTTP/2
 * lets any client send such a value, so before grpc-js reads the headers this listener replaces
 * each such character of those two values: still malformed for the core (IDEMPOTENCY_KEY_INVALID
 * and TOKEN_MALFORMED), and sayable in gRPC metadata. It also hands grpc-js a key sent more than
 * once as its separate values (node joins them with ", "), so the core can say so
 * (IDEMPOTENCY_KEY_INVALID) instead of finding a space in one joined key.
 *
 * Node itself drops a value with a space or tab at either end, or with a control character other
 * than a tab, before any listener sees the headers (grpc-js clients send `"k1 "` as it is).
 * `droppedKeyValuesOf` gives the key values as the client sent them (read from the connection's
 * bytes, DroppedKeyValues); they are taken without their surrounding spaces and tabs, as REST's
 * parser takes a header, so `"k1 "` is the key `k1` over both gateways; what else node refuses
 * stays malformed (IDEMPOTENCY_KEY_INVALID).
 *
 * grpc-js offers no public hook on the raw headers: the caller reaches its HTTP/2 server through
 * grpc-js's private `http2Servers` map (grpc-js 1.14, see grpc-listener.ts).
 */
export function keepMalformedMetadata(
  http2Server: StreamEvents,
  droppedKeyValuesOf: DroppedKeyValuesOf,
): void {
  http2Server.prependListener('stream', (stream, headers, _flags, rawHeaders) => {
    const authorization = headers[AUTHORIZATION_METADATA];
    if (typeof authorization === 'string') {
      headers[AUTHORIZATION_METADATA] = sayable(authorization, '?');
    }
    const sent = droppedKeyValuesOf(stream);
    if (sent !== undefined) {
      const keys = sent.map((key) => sayableKey(withoutSurroundingSpace(key)));
      headers[IDEMPOTENCY_KEY_METADATA] = keys.length > 1 ? keys : keys[0];
      return;
    }
    const value = headers[IDEMPOTENCY_KEY_METADATA];
    if (typeof value !== 'string') return;
    // Joined values hold ", "; a valid key has no space, so only then are the lines read.
    const values = value.includes(', ') ? rawValues(rawHeaders, IDEMPOTENCY_KEY_METADATA) : [value];
    headers[IDEMPOTENCY_KEY_METADATA] =
      values.length > 1 ? values.map(sayableKey) : sayableKey(value);
  });
}
