import { HpackDecoder } from '../hpack/hpack-decoder';
import { RequestFrameReader } from '../hpack/request-frame-reader';
import { IDEMPOTENCY_KEY_METADATA } from '../idempotency-metadata';

/**
 * A header value node's HTTP/2 layer (nghttp2 1.61, node 20) drops without a word, as RFC 9113
 * (8.2.1) lets it: one starting or ending with a space or a tab, or holding a control character
 * other than a tab (NUL resets the stream instead). grpc-js clients send `idempotency-key: "k1 "`
 * as it is, and any HTTP/2 client can send the rest, so without this the create would run with no
 * key at all.
 */
// eslint-disable-next-line no-control-regex
const DROPPED_BY_NODE = /^[ \t]|[ \t]$|[\0-\x08\x0a-\x1f\x7f]/;
/** Values kept per request: two already say the key was sent more than once. */
const KEPT_VALUES = 2;
/** Requests remembered at once; each is taken as soon as node opens its stream. */
const REMEMBERED_REQUESTS = 256;

interface RequestEvents {
  /** The client's connection preface arrived. */
  preface(): void;
  /** A request's headers arrived (a new stream). */
  request(streamId: number): void;
}

/**
 * Reads one connection's request headers as the client sent them (it decodes their HPACK, as
 * node does, in step with it) and remembers the `idempotency-key` values of each request in which
 * node will drop one, for the gateway to hand grpc-js what the client sent. `write` throws when
 * the bytes are not a valid HTTP/2 stream of header blocks, which node would refuse as well: the
 * connection must then be closed, since its keys could no longer be seen.
 */
export class DroppedKeyValues {
  private readonly decoder = new HpackDecoder();
  private readonly reader: RequestFrameReader;
  private readonly dropped = new Map<number, string[]>();
  private lastStream = 0;

  constructor(events: RequestEvents) {
    this.reader = new RequestFrameReader({
      preface: () => events.preface(),
      headerBlock: (streamId, block) => {
        const values: string[] = [];
        let anyDropped = false;
        this.decoder.decode(block, (name, value) => {
          if (name !== IDEMPOTENCY_KEY_METADATA) return;
          anyDropped ||= DROPPED_BY_NODE.test(value);
          if (values.length < KEPT_VALUES) values.push(value);
        });
        // A later block of a stream already open is its trailers, not a request.
        if (streamId <= this.lastStream) return;
        this.lastStream = streamId;
        if (anyDropped) this.remember(streamId, values);
        events.request(streamId);
      },
    });
  }

  write(chunk: Buffer): void {
    this.reader.write(chunk);
  }

  /**
   * The `idempotency-key` values of request `streamId` as sent (at most two), when node dropped
   * one of them; undefined when node dropped none. What is remembered of it and of earlier
   * requests is forgotten (node opens streams in order).
   */
  take(streamId: number): string[] | undefined {
    const values = this.dropped.get(streamId);
    for (const id of this.dropped.keys()) {
      if (id > streamId) break;
      this.dropped.delete(id);
    }
    return values;
  }

  private remember(streamId: number, values: string[]): void {
    this.dropped.set(streamId, values);
    if (this.dropped.size > REMEMBERED_REQUESTS) {
      const oldest = this.dropped.keys().next().value as number;
      this.dropped.delete(oldest);
    }
  }
}
