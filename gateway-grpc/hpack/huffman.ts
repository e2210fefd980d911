import { HpackError } from './hpack-error';

/**
 * The bit length of each symbol's code in HPACK's Huffman code (RFC 7541, Appendix B): octets
 * 0 to 255, then EOS (256). The code is canonical (codes of one length are consecutive, in symbol
 * order, after every shorter code), so the lengths alone define it.
 */
// prettier-ignore
const CODE_LENGTHS = [
  13, 23, 28, 28, 28, 28, 28, 28, 28, 24, 30, 28, 28, 30, 28, 28, // 0x00
  28, 28, 28, 28, 28, 28, 30, 28, 28, 28, 28, 28, 28, 28, 28, 28, // 0x10
  6, 10, 10, 12, 13, 6, 8, 11, 10, 10, 8, 11, 8, 6, 6, 6, //         ' ' to '/'
  5, 5, 5, 6, 6, 6, 6, 6, 6, 6, 7, 8, 15, 6, 12, 10, //              '0' to '?'
  13, 6, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, //                '@' to 'O'
  7, 7, 7, 7, 7, 7, 7, 7, 8, 7, 8, 13, 19, 13, 14, 6, //             'P' to '_'
  15, 5, 6, 5, 6, 5, 6, 6, 6, 5, 7, 7, 6, 6, 6, 5, //                '`' to 'o'
  6, 7, 6, 5, 5, 6, 7, 7, 7, 7, 7, 15, 11, 14, 13, 28, //            'p' to 0x7f
  20, 22, 20, 20, 22, 22, 22, 23, 22, 23, 23, 23, 23, 23, 24, 23, // 0x80
  24, 24, 22, 23, 24, 23, 23, 23, 23, 21, 22, 23, 22, 23, 23, 24, // 0x90
  22, 21, 20, 22, 22, 23, 23, 21, 23, 22, 22, 24, 21, 22, 23, 23, // 0xa0
  21, 21, 22, 21, 23, 22, 23, 23, 20, 22, 22, 22, 23, 22, 22, 23, // 0xb0
  26, 26, 20, 19, 22, 23, 22, 25, 26, 26, 26, 27, 27, 26, 24, 25, // 0xc0
  19, 21, 26, 27, 27, 26, 27, 24, 21, 21, 26, 26, 28, 27, 27, 27, // 0xd0
  20, 24, 20, 21, 22, 21, 21, 23, 22, 22, 25, 25, 24, 24, 26, 23, // 0xe0
  26, 27, 26, 26, 27, 27, 27, 27, 27, 28, 27, 27, 27, 27, 27, 26, // 0xf0
  30, //                                                             EOS
];
const EOS = 256;
const LONGEST = 30;

/**
 * The canonical code as a decoder reads it: for each length, the first code of that length, how
 * many codes have it, and where its symbols start in `symbols` (all symbols, by length then value).
 */
function canonicalTables() {
  const symbols = CODE_LENGTHS.map((length, symbol) => ({ length, symbol }))
    .sort((a, b) => a.length - b.length || a.symbol - b.symbol)
    .map(({ symbol }) => symbol);
  const count = new Array<number>(LONGEST + 1).fill(0);
  for (const length of CODE_LENGTHS) count[length] = (count[length] ?? 0) + 1;
  const firstCode = new Array<number>(LONGEST + 1).fill(0);
  const firstIndex = new Array<number>(LONGEST + 1).fill(0);
  let code = 0;
  let index = 0;
  for (let length = 1; length <= LONGEST; length++) {
    firstCode[length] = code;
    firstIndex[length] = index;
    const n = count[length] ?? 0;
    code = (code + n) * 2;
    index += n;
  }
  return { symbols, count, firstCode, firstIndex };
}
const TABLES = canonicalTables();

/**
 * The octets a Huffman-coded HPACK string stands for, as a latin1 string (one character per
 * octet, as node gives header values). Throws HpackError where a decoder must refuse the string
 * (RFC 7541, 5.2): EOS inside it, or padding longer than 7 bits or not made of 1 bits.
 */
export function decodeHuffman(bytes: Uint8Array): string {
  const { symbols, count, firstCode, firstIndex } = TABLES;
  let out = '';
  let code = 0;
  let length = 0;
  let allOnes = true;
  for (const byte of bytes) {
    for (let bit = 7; bit >= 0; bit--) {
      const one = (byte >> bit) & 1;
      code = code * 2 + one;
      length += 1;
      allOnes &&= one === 1;
      const offset = code - (firstCode[length] ?? 0);
      if (offset >= 0 && offset < (count[length] ?? 0)) {
        const symbol = symbols[(firstIndex[length] ?? 0) + offset] as number;
        if (symbol === EOS) throw new HpackError('a Huffman string holds EOS');
        out += String.fromCharCode(symbol);
        code = 0;
        length = 0;
        allOnes = true;
      } else if (length >= LONGEST) {
        throw new HpackError('a Huffman string holds no valid code');
      }
    }
  }
  if (length > 7 || !allOnes) throw new HpackError('a Huffman string has invalid padding');
  return out;
}
