import type { ServiceDefinition } from '@grpc/grpc-js';
import { BinaryReader, WireType } from '@bufbuild/protobuf/wire';
import { UndecodableBody } from '../core';

/**
 * What a handler receives instead of a request whose bytes are not a valid message. grpc-js
 * would otherwise answer INTERNAL before the gateway sees the call; with this the core reports
 * it (BODY_INVALID, INVALID_ARGUMENT) at its place in the precedence, as REST does for broken JSON.
 */
const UNDECODABLE_REQUEST = new UndecodableBody(
  'BODY_INVALID',
  'The request message could not be decoded.',
);

/**
 * The same for a string field whose bytes are not UTF-8, which proto3 forbids. The generated
 * decoder would read them with U+FFFD in place of each bad sequence, so a link could hold text
 * the client never sent; REST refuses such a body (BODY_INVALID) for the same reason.
 */
const NOT_UTF8_REQUEST = new UndecodableBody(
  'BODY_INVALID',
  'A string field of the request message is not valid UTF-8.',
);

/**
 * The same for a 64-bit integer field (a link's `id`) beyond what a JavaScript number holds
 * exactly: the generated decoder throws rather than round it to another number.
 */
const UNSAFE_INTEGER_REQUEST = new UndecodableBody(
  'BODY_INVALID',
  `An integer field of the request message is beyond ±${Number.MAX_SAFE_INTEGER}, which the server cannot read.`,
);

export function isUndecodable(request: unknown): request is UndecodableBody {
  return (
    request === UNDECODABLE_REQUEST ||
    request === NOT_UTF8_REQUEST ||
    request === UNSAFE_INTEGER_REQUEST
  );
}

/** ts-proto's longToNumber (forceLong=number) throws these for a value it cannot hold. */
function isUnsafeInteger(error: unknown): boolean {
  return (
    error instanceof Error &&
    /^Value is (larger|smaller) than Number\.(MAX|MIN)_SAFE_INTEGER$/.test(error.message)
  );
}

class NotUtf8 extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** A reader of `bytes` whose string fields throw NotUtf8 rather than hold U+FFFD. */
function strictReader(bytes: Buffer): BinaryReader {
  return new BinaryReader(bytes, (text) => {
    try {
      return utf8.decode(text);
    } catch {
      throw new NotUtf8();
    }
  });
}

/**
 * Whether `bytes` is a sequence of well-formed fields. ts-proto's decode stops, without an error,
 * at a field number 0 or at an end-group tag outside a group, neither of which a valid message
 * holds, and drops every byte after it (an alias, a redirect_type, bytes that are not UTF-8); it
 * also skips a group without checking that its end tag matches. Such a message is undecodable.
 */
function isWellFormed(bytes: Uint8Array): boolean {
  const reader = new BinaryReader(bytes);
  try {
    while (reader.pos < reader.len) {
      const [fieldNo, wireType] = reader.tag();
      if (wireType === WireType.EndGroup) return false;
      reader.skip(wireType, fieldNo);
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * The same service with request deserializers that never throw, and that refuse string fields
 * that are not UTF-8. ts-proto's `requestDeserialize` hands its argument to the message's
 * `decode`, which takes a BinaryReader as well as bytes: the strict reader goes through it.
 */
export function withTolerantDecoding<T extends ServiceDefinition>(definition: T): T {
  const methods = Object.entries(definition).map(([name, method]) => [
    name,
    {
      ...method,
      requestDeserialize: (bytes: Buffer): unknown => {
        if (!isWellFormed(bytes)) return UNDECODABLE_REQUEST;
        try {
          return method.requestDeserialize(strictReader(bytes) as unknown as Buffer);
        } catch (error) {
          if (error instanceof NotUtf8) return NOT_UTF8_REQUEST;
          return isUnsafeInteger(error) ? UNSAFE_INTEGER_REQUEST : UNDECODABLE_REQUEST;
        }
      },
    },
  ]);
  return Object.fromEntries(methods) as T;
}
