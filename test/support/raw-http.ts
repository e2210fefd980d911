import { request, type Agent, type IncomingHttpHeaders, type OutgoingHttpHeaders } from 'node:http';
import { connect, type Socket } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface RawRequest {
  port: number;
  method?: string;
  path?: string;
  headers?: OutgoingHttpHeaders;
  body?: Buffer | string;
  agent?: Agent;
  localAddress?: string;
}

/**
 * One request with exactly the bytes and headers given (node:http, not fetch, so bodies with
 * any Content-Type, charset or invalid UTF-8 go out untouched).
 */
export function sendRaw(options: RawRequest): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const body = options.body === undefined ? undefined : Buffer.from(options.body);
    const req = request(
      {
        host: '127.0.0.1',
        port: options.port,
        method: options.method ?? 'POST',
        path: options.path ?? '/api/create',
        headers: {
          ...(body ? { 'Content-Length': String(body.length) } : {}),
          ...options.headers,
        },
        agent: options.agent ?? false,
        ...(options.localAddress ? { localAddress: options.localAddress } : {}),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** A plain TCP connection to the server, for clients that misbehave below HTTP. */
export function openSocket(port: number, localAddress?: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, ...(localAddress ? { localAddress } : {}) });
    socket.once('connect', () => {
      socket.off('error', reject);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

export interface SocketOutcome {
  /** Everything the server wrote before the connection ended. */
  received: string;
  /** Set when the connection ended with an error (e.g. ECONNRESET) rather than a FIN. */
  errorCode: string | undefined;
}

/** Resolves when the connection closes, with what the server sent. */
export function whenClosed(socket: Socket): Promise<SocketOutcome> {
  return new Promise((resolve) => {
    let received = '';
    let errorCode: string | undefined;
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1');
    });
    socket.on('error', (error: NodeJS.ErrnoException) => {
      errorCode = error.code;
    });
    socket.once('close', () => resolve({ received, errorCode }));
    if (socket.destroyed) resolve({ received, errorCode });
  });
}

/** Settles after `ms` milliseconds (for trickling bytes, never for waiting on the server). */
export const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
