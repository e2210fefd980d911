import { constants, type ServerHttp2Stream } from 'node:http2';
import { status } from '@grpc/grpc-js';

/** A gRPC message's prefix: a compression flag and a 4-byte length (gRPC over HTTP/2). */
const PREFIX_BYTES = 5;

/**
 * Counts the complete messages in a call's request bytes, as they arrive in any chunks.
 * `chunk` answers how many messages it completed.
 */
export class MessageCounter {
  private readonly prefix = Buffer.alloc(PREFIX_BYTES);
  private prefixSeen = 0;
  private bodyLeft = 0;

  chunk(bytes: Buffer): number {
    let completed = 0;
    let at = 0;
    while (at < bytes.length) {
      if (this.prefixSeen < PREFIX_BYTES) {
        const take = Math.min(PREFIX_BYTES - this.prefixSeen, bytes.length - at);
        bytes.copy(this.prefix, this.prefixSeen, at, at + take);
        this.prefixSeen += take;
        at += take;
        if (this.prefixSeen < PREFIX_BYTES) break;
        this.bodyLeft = this.prefix.readUInt32BE(1);
      } else {
        const take = Math.min(this.bodyLeft, bytes.length - at);
        this.bodyLeft -= take;
        at += take;
      }
      if (this.prefixSeen === PREFIX_BYTES && this.bodyLeft === 0) {
        completed += 1;
        this.prefixSeen = 0;
      }
    }
    return completed;
  }
}

/**
 * Bounds how long `stream`'s request may take to arrive: `timeoutMs` from its headers to its
 * first message, from each message to the next, and from the last to the end of the request.
 * When it passes, the call is answered DEADLINE_EXCEEDED (or, when the server has already sent
 * its headers, reset as CANCELLED) and its stream reset, so the client can send no more and the
 * server drops what the call held; `expired` is told. It reads the request as grpc-js does
 * (grpc-js reads every call's request as it comes), so attach it after grpc-js's own listener.
 */
export function boundRequestArrival(
  stream: ServerHttp2Stream,
  timeoutMs: number,
  expired: () => void,
): void {
  const counter = new MessageCounter();
  const expire = () => {
    if (stream.closed || stream.destroyed) return;
    expired();
    const answered = stream.headersSent;
    if (!answered) {
      stream.respond(
        {
          [constants.HTTP2_HEADER_STATUS]: 200,
          [constants.HTTP2_HEADER_CONTENT_TYPE]: 'application/grpc+proto',
          'grpc-status': String(status.DEADLINE_EXCEEDED),
          'grpc-message': encodeURIComponent(`the request did not arrive within ${timeoutMs} ms`),
        },
        { endStream: true },
      );
    }
    // Answered, RST_STREAM NO_ERROR tells the client to stop sending (RFC 9113, 8.1); cut
    // short, CANCEL. Closing ends the request for grpc-js, which would then run a unary handler
    // whose message had arrived: closedCallGate keeps that from the handler.
    stream.close(answered ? constants.NGHTTP2_CANCEL : constants.NGHTTP2_NO_ERROR);
  };
  const timer = setTimeout(expire, timeoutMs);
  timer.unref();
  const stop = () => clearTimeout(timer);
  stream.on('data', (chunk: Buffer) => {
    if (counter.chunk(chunk) > 0) timer.refresh();
  });
  stream.once('end', stop);
  stream.once('close', stop);
}
