import { HpackError } from './hpack-error';
import { decodeHuffman } from './huffman';

/** RFC 7541, Appendix A: the static table, indexes 1 to 61 (names and values). */
// prettier-ignore
const STATIC_TABLE: ReadonlyArray<readonly [string, string]> = [
  [':authority', ''], [':method', 'GET'], [':method', 'POST'], [':path', '/'],
  [':path', '/index.html'], [':scheme', 'http'], [':scheme', 'https'], [':status', '200'],
  [':status', '204'], [':status', '206'], [':status', '304'], [':status', '400'],
  [':status', '404'], [':status', '500'], ['accept-charset', ''],
  ['accept-encoding', 'gzip, deflate'], ['accept-language', ''], ['accept-ranges', ''],
  ['accept', ''], ['access-control-allow-origin', ''], ['age', ''], ['allow', ''],
  ['authorization', ''], ['cache-control', ''], ['content-disposition', ''],
  ['content-encoding', ''], ['content-language', ''], ['content-length', ''],
  ['content-location', ''], ['content-range', ''], ['content-type', ''], ['cookie', ''],
  ['date', ''], ['etag', ''], ['expect', ''], ['expires', ''], ['from', ''], ['host', ''],
  ['if-match', ''], ['if-modified-since', ''], ['if-none-match', ''], ['if-range', ''],
  ['if-unmodified-since', ''], ['last-modified', ''], ['link', ''], ['location', ''],
  ['max-forwards', ''], ['proxy-authenticate', ''], ['proxy-authorization', ''], ['range', ''],
  ['referer', ''], ['refresh', ''], ['retry-after', ''], ['server', ''], ['set-cookie', ''],
  ['strict-transport-security', ''], ['transfer-encoding', ''], ['user-agent', ''], ['vary', ''],
  ['via', ''], ['www-authenticate', ''],
];

/** The size HPACK counts for an entry: its octets plus 32 (RFC 7541, 4.1). */
const entrySize = (name: string, value: string) => name.length + value.length + 32;

/**
 * HTTP/2's default SETTINGS_HEADER_TABLE_SIZE, which node keeps unless told otherwise (grpc-js
 * does not tell it): the largest dynamic table the peer's encoder may use.
 */
const DEFAULT_HEADER_TABLE_SIZE = 4096;

/** Receives each field of a header block, in order; names and values are latin1 strings. */
type FieldVisitor = (name: string, value: string) => void;

/**
 * An HPACK decoder (RFC 7541) for one direction of one connection: it keeps the dynamic table
 * the peer's encoder builds, so every block must be given, in order. Decoding never changes
 * what the peer sent; a block a decoder must refuse throws HpackError.
 */
export class HpackDecoder {
  /** The dynamic table, newest entry first. */
  private readonly entries: Array<readonly [string, string]> = [];
  private size = 0;
  private maxSize: number;

  constructor(private readonly settingsMaxSize = DEFAULT_HEADER_TABLE_SIZE) {
    this.maxSize = settingsMaxSize;
  }

  decode(block: Buffer, visit: FieldVisitor): void {
    let at = 0;
    const integer = (prefixBits: number): number => {
      const mask = (1 << prefixBits) - 1;
      let value = (block[at++] as number) & mask;
      if (value < mask) return value;
      for (let shift = 0; ; shift += 7) {
        if (at >= block.length) throw new HpackError('a header block ends inside an integer');
        if (shift > 21) throw new HpackError('a header block holds an integer too large');
        const byte = block[at++] as number;
        value += (byte & 0x7f) * 2 ** shift;
        if ((byte & 0x80) === 0) return value;
      }
    };
    const string = (): string => {
      if (at >= block.length) throw new HpackError('a header block ends before a string');
      const huffman = ((block[at] as number) & 0x80) !== 0;
      const length = integer(7);
      if (at + length > block.length) throw new HpackError('a header block ends inside a string');
      const bytes = block.subarray(at, at + length);
      at += length;
      return huffman ? decodeHuffman(bytes) : bytes.toString('latin1');
    };
    const literal = (prefixBits: number, indexed: boolean) => {
      const index = integer(prefixBits);
      const name = index === 0 ? string() : this.field(index)[0];
      const value = string();
      if (indexed) this.add(name, value);
      visit(name, value);
    };

    while (at < block.length) {
      const first = block[at] as number;
      if (first & 0x80) {
        const [name, value] = this.field(integer(7));
        visit(name, value);
      } else if (first & 0x40) {
        literal(6, true);
      } else if (first & 0x20) {
        const size = integer(5);
        if (size > this.settingsMaxSize) {
          throw new HpackError('a dynamic table size update exceeds the announced size');
        }
        this.maxSize = size;
        this.evict(0);
      } else {
        // Without indexing (0000) or never indexed (0001): the table is left as it is.
        literal(4, false);
      }
    }
  }

  private field(index: number): readonly [string, string] {
    const entry =
      index <= STATIC_TABLE.length
        ? STATIC_TABLE[index - 1]
        : this.entries[index - STATIC_TABLE.length - 1];
    if (index === 0 || entry === undefined) {
      throw new HpackError(`a header block names index ${index}, which the table does not hold`);
    }
    return entry;
  }

  private add(name: string, value: string): void {
    const size = entrySize(name, value);
    // An entry larger than the table empties it and is not kept (RFC 7541, 4.4).
    this.evict(size);
    if (size > this.maxSize) return;
    this.entries.unshift([name, value]);
    this.size += size;
  }

  /** Drops the oldest entries until `room` more octets fit. */
  private evict(room: number): void {
    while (this.size + room > this.maxSize && this.entries.length > 0) {
      const [name, value] = this.entries.pop() as readonly [string, string];
      this.size -= entrySize(name, value);
    }
  }
}
