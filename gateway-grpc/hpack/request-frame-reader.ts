import { HpackError } from './hpack-error';

/** The client connection preface's fixed part (RFC 9113, 3.4); a SETTINGS frame follows it. */
const CLIENT_MAGIC = Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n', 'latin1');
const FRAME_HEADER_BYTES = 9;
const HEADERS = 0x1;
const CONTINUATION = 0x9;
const END_HEADERS = 0x4;
const PADDED = 0x8;
const PRIORITY = 0x20;

/**
 * The largest header block kept while its frames arrive: far above what nghttp2 accepts (a
 * HEADERS frame and 8 CONTINUATION frames of at most 16 KiB), so a peer cannot make this reader
 * hold more than that connection would be allowed anyway.
 */
const MAX_HEADER_BLOCK_BYTES = 256 * 1024;

interface RequestFrameEvents {
  /** The client's magic and the header of its first frame (its SETTINGS) arrived. */
  preface(): void;
  /** A complete header block (HEADERS and its CONTINUATION frames) of `streamId`. */
  headerBlock(streamId: number, block: Buffer): void;
}

/**
 * Reads the bytes a client sends on an HTTP/2 connection, as they arrive in any chunks, and hands
 * out its header blocks; every other frame is skipped without being copied. It only reads: the
 * bytes go on to node's HTTP/2 session unchanged. A connection that does not start with the
 * client preface is not HTTP/2 (node refuses it) and is no longer read. Throws HpackError for
 * framing a server must treat as a connection error (a header block interrupted, or too large).
 */
export class RequestFrameReader {
  private magicSeen = 0;
  private prefaceTold = false;
  private stopped = false;
  private readonly header = Buffer.alloc(FRAME_HEADER_BYTES);
  private headerSeen = 0;
  /** Payload bytes of the current frame still to come; its bytes are kept for header frames. */
  private payloadLeft = 0;
  private payload: Buffer[] | undefined;
  private frameType = 0;
  private frameFlags = 0;
  private frameStream = 0;
  /** The header block being received: its stream and fragments, while END_HEADERS is awaited. */
  private blockStream = 0;
  private fragments: Buffer[] = [];
  private blockBytes = 0;

  constructor(private readonly events: RequestFrameEvents) {}

  write(chunk: Buffer): void {
    let at = 0;
    while (at < chunk.length && !this.stopped) {
      if (this.magicSeen < CLIENT_MAGIC.length) {
        if (chunk[at] !== CLIENT_MAGIC[this.magicSeen]) {
          this.stopped = true;
          return;
        }
        this.magicSeen += 1;
        at += 1;
      } else if (this.headerSeen < FRAME_HEADER_BYTES) {
        const take = Math.min(FRAME_HEADER_BYTES - this.headerSeen, chunk.length - at);
        chunk.copy(this.header, this.headerSeen, at, at + take);
        this.headerSeen += take;
        at += take;
        if (this.headerSeen === FRAME_HEADER_BYTES) this.startFrame();
      } else {
        const take = Math.min(this.payloadLeft, chunk.length - at);
        this.payload?.push(chunk.subarray(at, at + take));
        this.payloadLeft -= take;
        at += take;
        if (this.payloadLeft === 0) this.endFrame();
      }
    }
  }

  private startFrame(): void {
    if (!this.prefaceTold) {
      this.prefaceTold = true;
      this.events.preface();
    }
    this.payloadLeft = this.header.readUIntBE(0, 3);
    this.frameType = this.header[3] as number;
    this.frameFlags = this.header[4] as number;
    this.frameStream = this.header.readUInt32BE(5) & 0x7fffffff;
    const inBlock = this.fragments.length > 0;
    if (inBlock && (this.frameType !== CONTINUATION || this.frameStream !== this.blockStream)) {
      throw new HpackError('a header block was interrupted by another frame');
    }
    if (!inBlock && this.frameType === CONTINUATION) {
      throw new HpackError('a CONTINUATION frame follows no header block');
    }
    const headerFrame = this.frameType === HEADERS || this.frameType === CONTINUATION;
    if (headerFrame && this.blockBytes + this.payloadLeft > MAX_HEADER_BLOCK_BYTES) {
      throw new HpackError('a header block is too large');
    }
    this.payload = headerFrame ? [] : undefined;
    if (this.payloadLeft === 0) this.endFrame();
  }

  private endFrame(): void {
    this.headerSeen = 0;
    const payload = this.payload;
    this.payload = undefined;
    if (payload === undefined) return;
    let fragment: Buffer = Buffer.concat(payload);
    if (this.frameType === HEADERS) {
      fragment = this.headersFragment(fragment);
      this.blockStream = this.frameStream;
    }
    this.fragments.push(fragment);
    this.blockBytes += fragment.length;
    if ((this.frameFlags & END_HEADERS) === 0) return;
    const block = Buffer.concat(this.fragments);
    this.fragments = [];
    this.blockBytes = 0;
    this.events.headerBlock(this.blockStream, block);
  }

  /** A HEADERS payload without its padding and priority fields (RFC 9113, 6.2). */
  private headersFragment(payload: Buffer): Buffer {
    let start = 0;
    let end = payload.length;
    if (this.frameFlags & PADDED) {
      const padding = payload[0] ?? 0;
      start += 1;
      end -= padding;
    }
    if (this.frameFlags & PRIORITY) start += 5;
    if (start > end) throw new HpackError('a HEADERS frame is shorter than its padding');
    return payload.subarray(start, end);
  }
}
