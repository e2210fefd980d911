import { connect, type OutgoingHttpHeaders } from 'node:http2';

/** What a raw gRPC call ended with: its status, the shortlink code, the message and the reply. */
export interface RawOutcome {
  grpcStatus: number;
  shortlinkCode: string | undefined;
  message: string;
  /** The response's length-prefixed message frames, as received. */
  data: Buffer;
}

/**
 * One unary call of `method` (`/package.Service/Method`) by a raw HTTP/2 client, with `message`
 * (the encoded request) framed as gRPC frames it: what any gRPC implementation, or a hand-made
 * request, can send, including what grpc-js clients refuse to (metadata values with control or
 * non-ASCII characters, bytes that are not valid UTF-8 in a string field).
 */
export function rawCall(
  port: number,
  method: string,
  message: Uint8Array,
  headers: OutgoingHttpHeaders,
): Promise<RawOutcome> {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(frame, 5);
  return new Promise((resolve, reject) => {
    const session = connect(`http://127.0.0.1:${port}`);
    session.on('error', reject);
    const request = session.request({
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...headers,
    });
    request.on('error', reject);
    const received: Record<string, string> = {};
    const keep = (fields: Record<string, unknown>) => {
      for (const [name, value] of Object.entries(fields)) {
        if (typeof value === 'string') received[name] = value;
      }
    };
    const data: Buffer[] = [];
    request.on('response', keep);
    request.on('trailers', keep);
    request.on('data', (chunk: Buffer) => data.push(chunk));
    request.on('end', () => {
      session.close();
      resolve({
        grpcStatus: Number(received['grpc-status']),
        shortlinkCode: received['shortlink-error-code'],
        message: decodeURIComponent(received['grpc-message'] ?? ''),
        data: Buffer.concat(data),
      });
    });
    request.end(frame);
  });
}
