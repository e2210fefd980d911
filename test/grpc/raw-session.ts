import {
  connect,
  constants,
  type ClientHttp2Session,
  type ClientHttp2Stream,
  type OutgoingHttpHeaders,
} from 'node:http2';
import { connect as connectTcp, type Socket } from 'node:net';

/** A gRPC message frame: the compression flag, the length, the bytes. */
export function grpcFrame(message: Uint8Array): Buffer {
  const frame = Buffer.alloc(5 + message.length);
  frame.writeUInt32BE(message.length, 1);
  Buffer.from(message).copy(frame, 5);
  return frame;
}

/** An HTTP/2 session to the server on 127.0.0.1:`port`, once its preface is sent. */
export async function openSession(port: number): Promise<ClientHttp2Session> {
  const session = connect(`http://127.0.0.1:${port}`);
  // The tests watch how sessions end; an error is one of the ways.
  session.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    session.once('connect', () => resolve());
    session.once('close', () => reject(new Error('the session closed before connecting')));
  });
  return session;
}

/** How a raw call ended. */
export interface RawCallEnd {
  grpcStatus: number | undefined;
  message: string;
  /** The stream's RST_STREAM code as the client saw it (0 when none or NO_ERROR). */
  rstCode: number;
  /** Whether the stream closed although this client never ended its request. */
  closedWhileSending: boolean;
}

/**
 * Opens a call of `method` on `session` and sends what `body` holds (nothing by default) without
 * ending the request unless `end`: the request of a client that never finishes its message.
 */
export function startCall(
  session: ClientHttp2Session,
  method: string,
  options: { headers?: OutgoingHttpHeaders; body?: Buffer; end?: boolean } = {},
): { stream: ClientHttp2Stream; end(): void; ended: Promise<RawCallEnd> } {
  const stream = session.request(
    {
      ':method': 'POST',
      ':path': method,
      'content-type': 'application/grpc',
      te: 'trailers',
      ...options.headers,
    },
    { endStream: false },
  );
  stream.on('error', () => undefined);
  const received: Record<string, string> = {};
  const keep = (fields: Record<string, unknown>) => {
    for (const [name, value] of Object.entries(fields)) {
      if (typeof value === 'string') received[name] = value;
    }
  };
  stream.on('response', keep);
  stream.on('trailers', keep);
  stream.resume();
  let ending = false;
  const ended = new Promise<RawCallEnd>((resolve) =>
    stream.once('close', () =>
      resolve({
        grpcStatus:
          received['grpc-status'] === undefined ? undefined : Number(received['grpc-status']),
        message: decodeURIComponent(received['grpc-message'] ?? ''),
        rstCode: stream.rstCode ?? 0,
        closedWhileSending: !ending,
      }),
    ),
  );
  const end = () => {
    ending = true;
    stream.end();
  };
  if (options.body) stream.write(options.body);
  if (options.end) end();
  return { stream, end, ended };
}

/** Resolves with how long `emitter` took to emit `event`, from now. */
export function timeUntil(
  emitter: { once(event: string, listener: (...args: unknown[]) => void): unknown },
  event: string,
): Promise<number> {
  const started = Date.now();
  return new Promise((resolve) => emitter.once(event, () => resolve(Date.now() - started)));
}

/** A TCP connection to 127.0.0.1:`port` that sends nothing (and reads what it is sent). */
export async function silentConnection(port: number): Promise<Socket> {
  const socket = connectTcp(port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.resume();
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  return socket;
}

/** Resolves with whether `socket` closes within `ms`. */
export function closesWithin(
  target: { once(event: 'close', listener: () => void): unknown; destroyed: boolean },
  ms: number,
): Promise<boolean> {
  if (target.destroyed) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    target.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

export const { NGHTTP2_ENHANCE_YOUR_CALM, NGHTTP2_NO_ERROR, NGHTTP2_CANCEL } = constants;
