/**
 * The charsets a JSON body may come in (RFC 8259 section 8.1 and its predecessor's UTF-16 and
 * UTF-32), each with a strict decoder: bytes that are not well-formed in the charset (invalid
 * UTF-8, an odd byte left over in UTF-16, a lone surrogate) give `undefined`, never U+FFFD, so a
 * link never stores text the client did not send. A leading byte order mark is dropped.
 *
 * body-parser alone would accept any charset that starts with `utf-` and that iconv-lite decodes,
 * UTF-7 included, which would let a body read one way by a proxy's JSON inspection and another
 * way here; and iconv-lite replaces malformed bytes instead of refusing them.
 */
type Decode = (bytes: Uint8Array) => string | undefined;

const BYTE_ORDER_MARK = '\uFEFF';

function textDecoder(encoding: 'utf-8' | 'utf-16le' | 'utf-16be'): Decode {
  // Without `stream`, every decode() starts afresh, so one decoder serves every request.
  const decoder = new TextDecoder(encoding, { fatal: true });
  return (bytes) => {
    try {
      return decoder.decode(bytes);
    } catch {
      return undefined;
    }
  };
}

/** TextDecoder has no UTF-32: each 4 bytes are one code point, surrogates excluded. */
function utf32Decoder(littleEndian: boolean): Decode {
  return (bytes) => {
    if (bytes.length % 4 !== 0) return undefined;
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    const codePoints: number[] = [];
    for (let offset = 0; offset < bytes.length; offset += 4) {
      const codePoint = view.getUint32(offset, littleEndian);
      if (codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return undefined;
      codePoints.push(codePoint);
    }
    // At most 4096 code points (16 KiB), well within the arguments a call may take.
    const text = String.fromCodePoint(...codePoints);
    return text.startsWith(BYTE_ORDER_MARK) ? text.slice(1) : text;
  };
}

/**
 * Whether a body in UTF-16 or UTF-32 of unnamed byte order is big-endian: by its byte order mark,
 * else by where the zero bytes of its first character (ASCII in any JSON text) sit, as RFC 4627
 * section 3 reads them. Little-endian when neither tells, as iconv-lite guessed before.
 */
function bigEndian(bytes: Uint8Array, unitBytes: 2 | 4): boolean {
  if (unitBytes === 2) return bytes[0] === 0xfe || (bytes[0] === 0 && bytes[1] !== 0);
  return bytes[0] === 0 && bytes[1] === 0 && (bytes[2] === 0xfe || bytes[2] === 0);
}

function byteOrderFromBody(unitBytes: 2 | 4, little: Decode, big: Decode): Decode {
  return (bytes) => (bigEndian(bytes, unitBytes) ? big(bytes) : little(bytes));
}

const utf16le = textDecoder('utf-16le');
const utf16be = textDecoder('utf-16be');
const utf32le = utf32Decoder(true);
const utf32be = utf32Decoder(false);

const utf8 = textDecoder('utf-8');

const DECODERS: ReadonlyMap<string, Decode> = new Map([
  ['utf-8', utf8],
  // UTF-8's other common name (a label of it in the WHATWG Encoding Standard), sent by clients.
  ['utf8', utf8],
  ['utf-16', byteOrderFromBody(2, utf16le, utf16be)],
  ['utf-16le', utf16le],
  ['utf-16be', utf16be],
  ['utf-32', byteOrderFromBody(4, utf32le, utf32be)],
  ['utf-32le', utf32le],
  ['utf-32be', utf32be],
]);

/** The charset of a body that declares none. */
export const DEFAULT_JSON_CHARSET = 'utf-8';

/** Whether a JSON body may come in `charset` (lower case). */
export function isJsonCharset(charset: string): boolean {
  return DECODERS.has(charset);
}

/**
 * The text of `bytes` in `charset` (one `isJsonCharset` accepts), or undefined when they are not
 * well-formed in it.
 */
export function decodeJsonText(bytes: Uint8Array, charset: string): string | undefined {
  return DECODERS.get(charset)?.(bytes);
}
