import {
  connect,
  constants,
  createServer as createHttp2Server,
  type ClientHttp2Session,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import { createServer, type AddressInfo } from 'node:net';
import { ObservedSocket } from '../../gateway-grpc/connection/observed-socket';
import { HpackDecoder } from '../../gateway-grpc/hpack/hpack-decoder';
import { HpackError } from '../../gateway-grpc/hpack/hpack-error';
import { decodeHuffman } from '../../gateway-grpc/hpack/huffman';
import { RequestFrameReader } from '../../gateway-grpc/hpack/request-frame-reader';

const hex = (text: string) => Buffer.from(text.replace(/\s+/g, ''), 'hex');

function decodeAll(decoder: HpackDecoder, block: Buffer): Array<[string, string]> {
  const fields: Array<[string, string]> = [];
  decoder.decode(block, (name, value) => fields.push([name, value]));
  return fields;
}

describe('HPACK decoding (RFC 7541 examples)', () => {
  it('decodes the Huffman strings of Appendix C.4', () => {
    expect(decodeHuffman(hex('f1e3 c2e5 f23a 6ba0 ab90 f4ff'))).toBe('www.example.com');
    expect(decodeHuffman(hex('a8eb 1064 9cbf'))).toBe('no-cache');
    expect(decodeHuffman(hex('25a8 49e9 5ba9 7d7f'))).toBe('custom-key');
    expect(decodeHuffman(hex('25a8 49e9 5bb8 e8b4 bf'))).toBe('custom-value');
  });

  it('refuses Huffman padding that is not a prefix of EOS, or longer than 7 bits', () => {
    // 'a' is 00011 (5 bits): padded with 1s it is 0x1f; with a 0 bit it is not valid.
    expect(decodeHuffman(Buffer.from([0x1f]))).toBe('a');
    expect(() => decodeHuffman(Buffer.from([0x1e]))).toThrow(HpackError);
    expect(() => decodeHuffman(Buffer.from([0x1f, 0xff]))).toThrow(HpackError);
  });

  it('decodes the requests of Appendix C.3 and C.4 with one dynamic table each', () => {
    const first: Array<[string, string]> = [
      [':method', 'GET'],
      [':scheme', 'http'],
      [':path', '/'],
      [':authority', 'www.example.com'],
    ];
    const second = [...first, ['cache-control', 'no-cache']];
    const third = [
      [':method', 'GET'],
      [':scheme', 'https'],
      [':path', '/index.html'],
      [':authority', 'www.example.com'],
      ['custom-key', 'custom-value'],
    ];
    const plain = new HpackDecoder();
    expect(decodeAll(plain, hex('828684 410f 7777 772e 6578 616d 706c 652e 636f 6d'))).toEqual(
      first,
    );
    expect(decodeAll(plain, hex('8286 84be 5808 6e6f 2d63 6163 6865'))).toEqual(second);
    expect(
      decodeAll(
        plain,
        hex('8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65'),
      ),
    ).toEqual(third);

    const huffman = new HpackDecoder();
    expect(decodeAll(huffman, hex('8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff'))).toEqual(first);
    expect(decodeAll(huffman, hex('8286 84be 5886 a8eb 1064 9cbf'))).toEqual(second);
    expect(
      decodeAll(huffman, hex('8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf')),
    ).toEqual(third);
  });

  it('refuses an index the tables do not hold, a block cut inside a field, a table past 4096', () => {
    expect(() => decodeAll(new HpackDecoder(), Buffer.from([0xbe]))).toThrow(HpackError);
    expect(() => decodeAll(new HpackDecoder(), Buffer.from([0x80]))).toThrow(HpackError);
    expect(() => decodeAll(new HpackDecoder(), hex('410f 7777'))).toThrow(HpackError);
    // Dynamic table size updates: 4096 (31 + 97 + 31 * 128) is the announced size; 4097 is not.
    expect(decodeAll(new HpackDecoder(), hex('3fe1 1f'))).toEqual([]);
    expect(() => decodeAll(new HpackDecoder(), hex('3fe2 1f'))).toThrow(HpackError);
  });
});

/** A printable string of `length` characters, with latin1 letters and inner spaces. */
function randomValue(random: () => number, length: number): string {
  const alphabet =
    'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.~!#$%&*+/:;<=>?@[]^`{|}';
  let value = '';
  for (let i = 0; i < length; i++) {
    const pick = random();
    if (pick < 0.05 && i > 0 && i < length - 1) value += ' ';
    else if (pick < 0.1) value += String.fromCharCode(0xa1 + Math.floor(random() * 0x5e));
    else value += alphabet[Math.floor(random() * alphabet.length)];
  }
  return value;
}

/** A small seeded generator (mulberry32), so a failure can be replayed. */
function seeded(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** What one connection's reader saw: each stream's first header block, decoded, and the bytes. */
interface ReadConnection {
  decoded: Map<number, Array<[string, string]>>;
  bytes: Buffer[];
}

function readHeaders(into: ReadConnection['decoded']) {
  const decoder = new HpackDecoder();
  const reader = new RequestFrameReader({
    preface: () => undefined,
    headerBlock: (streamId, block) => {
      const fields = decodeAll(decoder, block);
      if (!into.has(streamId)) into.set(streamId, fields);
    },
  });
  return { write: (chunk: Buffer) => reader.write(chunk) };
}

describe('HPACK decoding in step with node', () => {
  it('reads a HEADERS frame with a PRIORITY field and padding, made by hand, in any chunks', () => {
    const frame = (type: number, flags: number, stream: number, payload: Buffer) => {
      const header = Buffer.alloc(9);
      header.writeUIntBE(payload.length, 0, 3);
      header[3] = type;
      header[4] = flags;
      header.writeUInt32BE(stream, 5);
      return Buffer.concat([header, payload]);
    };
    const block = Buffer.from([0x83, 0x86, 0x84]); // :method POST, :scheme http, :path /
    const padding = 5;
    // Exclusive (the top bit), depending on stream 1; the weight follows the padding length.
    const priority = Buffer.from([0x80, 0, 0, 1]);
    const headers = frame(
      0x1,
      0x4 | 0x8 | 0x20, // END_HEADERS | PADDED | PRIORITY
      3,
      Buffer.concat([
        Buffer.from([padding]),
        priority,
        Buffer.from([200]),
        block,
        Buffer.alloc(padding),
      ]),
    );
    const bytes = Buffer.concat([
      Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1'),
      frame(0x4, 0, 0, Buffer.alloc(0)),
      headers,
    ]);
    for (const chunkSize of [1, 7, bytes.length]) {
      const blocks: Array<[number, Buffer]> = [];
      const reader = new RequestFrameReader({
        preface: () => undefined,
        headerBlock: (streamId, fragment) => blocks.push([streamId, Buffer.from(fragment)]),
      });
      for (let at = 0; at < bytes.length; at += chunkSize) {
        reader.write(bytes.subarray(at, at + chunkSize));
      }
      expect(blocks).toEqual([[3, block]]);
      expect(decodeAll(new HpackDecoder(), block)).toEqual([
        [':method', 'POST'],
        [':scheme', 'http'],
        [':path', '/'],
      ]);
    }
  });

  it('reads every request header exactly as node does: dynamic table, Huffman, padding, CONTINUATION', async () => {
    const connections: ReadConnection[] = [];
    const seen: Array<{ connection: number; id: number; raw: string[] }> = [];
    const http2 = createHttp2Server();
    // Node makes a connection's session while it is handed over: that is how they are paired.
    const sessions = new Map<ServerHttp2Session, number>();
    let handingOver = -1;
    http2.on('session', (session) => sessions.set(session, handingOver));
    const sockets = createServer((socket) => {
      const connection: ReadConnection = { decoded: new Map(), bytes: [] };
      handingOver = connections.push(connection) - 1;
      const { write } = readHeaders(connection.decoded);
      http2.emit(
        'connection',
        new ObservedSocket(socket, (chunk) => {
          connection.bytes.push(Buffer.from(chunk));
          write(chunk);
        }),
      );
    });
    http2.on(
      'stream',
      (stream: ServerHttp2Stream, _headers: unknown, _flags: number, rawHeaders: string[]) => {
        const connection = sessions.get(stream.session as ServerHttp2Session) ?? -1;
        seen.push({ connection, id: stream.id ?? 0, raw: rawHeaders });
        stream.respond({ ':status': 200 }, { endStream: true });
      },
    );
    await new Promise<void>((resolve) => sockets.listen(0, '127.0.0.1', resolve));
    const port = (sockets.address() as AddressInfo).port;
    const random = seeded(20261125);
    const names = ['idempotency-key', 'authorization', 'x-a', 'x-b', 'user-agent', 'cookie'];
    const earlier: string[] = [];
    const send = async (session: ClientHttp2Session, n: number) => {
      const headers: Record<string, string> = { ':method': 'POST', ':path': `/p/${n}` };
      const count = 1 + Math.floor(random() * 6);
      for (let i = 0; i < count; i++) {
        const pick = random();
        const name =
          pick < 0.8
            ? (names[Math.floor(random() * names.length)] as string)
            : `x-new-${Math.floor(random() * 1e6)}`;
        // Repeated values use the dynamic table; long ones make it evict.
        const value =
          earlier.length > 0 && random() < 0.4
            ? (earlier[Math.floor(random() * earlier.length)] as string)
            : randomValue(
                random,
                random() < 0.1 ? 1000 + Math.floor(random() * 3000) : 1 + Math.floor(random() * 60),
              );
        earlier.push(value);
        headers[name] = value;
      }
      // Past 16 KiB, node sends the block as HEADERS and CONTINUATION frames.
      if (n % 50 === 7) headers['x-large'] = randomValue(random, 20000);
      await new Promise<void>((resolve, reject) => {
        // No `weight`: node 24 deprecates priority signalling (DEP0194). A HEADERS frame with a
        // PRIORITY field is made by hand below.
        const request = session.request(headers, { endStream: true });
        request.on('error', reject);
        request.on('close', resolve);
        request.resume();
      });
    };
    const plain = connect(`http://127.0.0.1:${port}`);
    const padded = connect(`http://127.0.0.1:${port}`, {
      paddingStrategy: constants.PADDING_STRATEGY_MAX,
    });
    try {
      for (let n = 0; n < 300; n++) await send(n % 2 === 0 ? plain : padded, n);
    } finally {
      plain.close();
      padded.close();
      await new Promise<void>((resolve) => sockets.close(() => resolve()));
      http2.close();
    }
    expect(connections).toHaveLength(2);
    expect(seen).toHaveLength(300);
    for (const { connection, id, raw } of seen) {
      const pairs: Array<[string, string]> = [];
      for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([raw[i]!, raw[i + 1]!]);
      expect([id, connections[connection]?.decoded.get(id)]).toEqual([id, pairs]);
    }
    // The same bytes, one at a time, read the same.
    for (const connection of connections) {
      const again = new Map<number, Array<[string, string]>>();
      const { write } = readHeaders(again);
      for (const byte of Buffer.concat(connection.bytes)) write(Buffer.from([byte]));
      expect(again).toEqual(connection.decoded);
    }
  });
});
