import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestListener } from 'node:http';

export interface HttpServerOptions {
  port: number;
  host: string;
  /** Whole-request deadline: a body trickled byte by byte cannot hold a socket for longer. */
  requestTimeoutMs?: number;
  headersTimeoutMs?: number;
  keepAliveTimeoutMs?: number;
}

export interface RunningHttpServer {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish, closes idle keep-alive sockets. */
  close(): Promise<void>;
}

export async function listenHttp(
  app: RequestListener,
  options: HttpServerOptions,
): Promise<RunningHttpServer> {
  const server = createServer(
    {
      requestTimeout: options.requestTimeoutMs ?? 15_000,
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      keepAliveTimeout: options.keepAliveTimeoutMs ?? 5_000,
    },
    app,
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    server,
    port,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeIdleConnections();
      }),
  };
}
