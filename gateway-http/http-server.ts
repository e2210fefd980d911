import { createServer, type ServerResponse, type Server } from 'node:http';
import type { RequestListener } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { listenOptions } from '../core/runtime/cluster/reuse-port';
import { limitConnectionsPerAddress } from '../core/runtime/connections-per-address';
import type { MessageClasses } from './express-message-classes';
import { serveUnusualRequests } from './unusual-requests';

export interface HttpServerOptions {
  port: number;
  host: string;
  /**
   * Whole-request deadline (head and body), answered 408: a body trickled byte by byte cannot
   * hold a socket for longer.
   */
  requestTimeoutMs?: number;
  /**
   * Deadline for the request line and headers, answered 408. It also closes a connection that
   * never sends a byte. Never more than `requestTimeoutMs` (Node refuses that).
   */
  headersTimeoutMs?: number;
  /** How long an idle keep-alive connection is kept after its last response. */
  keepAliveTimeoutMs?: number;
  /**
   * Headers parsed per request: Node 22 and later answer a request with more 431; Node 20 ignores
   * the rest. Either way a header flood costs nothing.
   */
  maxHeadersCount?: number;
  /** A request line plus headers larger than this is refused with 431. */
  maxHeaderSizeBytes?: number;
  /**
   * Open connections one client address may hold; further ones are closed at once, so one
   * address cannot use up the process's file descriptors. 0 means no limit, the default,
   * because behind a proxy every client shares the proxy's address.
   */
  maxConnectionsPerAddress?: number;
  /**
   * On close(), connections still open after this long are destroyed. Node stops enforcing the
   * request and headers timeouts once a server closes, so without it a slow client could hold
   * shutdown forever. Defaults to `requestTimeoutMs`: an accepted request gets that long anyway.
   */
  drainTimeoutMs?: number;
  /**
   * The request and response types the server constructs (node's own by default); see
   * `expressMessageClasses`.
   */
  messageClasses?: MessageClasses | undefined;
  /**
   * Bind a listening socket of this process's own with SO_REUSEPORT, beside the other WORKERS
   * workers' on the same port (see `workersReusePort`); otherwise a cluster worker shares the
   * primary's socket.
   */
  reusePort?: boolean;
}

/** The defaults of the options above; the README documents them. */
export const HTTP_SERVER_DEFAULTS = {
  requestTimeoutMs: 15_000,
  headersTimeoutMs: 10_000,
  keepAliveTimeoutMs: 5_000,
  maxHeadersCount: 100,
  maxHeaderSizeBytes: 16 * 1024,
  maxConnectionsPerAddress: 0,
} as const;

export interface RunningHttpServer {
  server: Server;
  port: number;
  /**
   * Stops accepting, lets in-flight requests finish (their answers say `Connection: close`),
   * closes idle keep-alive sockets, and destroys what is still open after the drain timeout.
   */
  close(): Promise<void>;
}

export async function listenHttp(
  app: RequestListener,
  options: HttpServerOptions,
): Promise<RunningHttpServer> {
  const settings = { ...HTTP_SERVER_DEFAULTS, ...definedOnly(options) };
  const headersTimeout = Math.min(settings.headersTimeoutMs, settings.requestTimeoutMs);
  const responses = new Set<ServerResponse>();
  const sockets = new Set<Socket>();
  let draining = false;

  const onRequest: RequestListener = (req, res) => {
    // While draining, every answer closes its connection, so no keep-alive socket lingers.
    if (draining) res.setHeader('Connection', 'close');
    responses.add(res);
    res.once('close', () => responses.delete(res));
    app(req, res);
  };
  const server = createServer(
    {
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout,
      keepAliveTimeout: settings.keepAliveTimeoutMs,
      maxHeaderSize: settings.maxHeaderSizeBytes,
      // Node checks the two timeouts above on this period (30 s by default), so they would
      // fire up to 30 s late; a short period keeps them close to what is configured.
      connectionsCheckingInterval: Math.max(50, Math.min(1_000, Math.ceil(headersTimeout / 4))),
      ...options.messageClasses,
    },
    onRequest,
  );
  // An unknown Expect is served, and CONNECT answered, as any other request (not by node).
  serveUnusualRequests(server, onRequest, options.messageClasses?.ServerResponse);
  server.maxHeadersCount = settings.maxHeadersCount;
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  if (settings.maxConnectionsPerAddress > 0) {
    limitConnectionsPerAddress(server, settings.maxConnectionsPerAddress);
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenOptions(options.port, options.host, options.reusePort), () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve, reject) => {
      draining = true;
      for (const res of responses) {
        if (!res.headersSent) res.setHeader('Connection', 'close');
      }
      const deadline = setTimeout(() => {
        for (const socket of sockets) socket.destroy();
      }, settings.drainTimeoutMs ?? settings.requestTimeoutMs);
      server.close((error) => {
        clearTimeout(deadline);
        if (error) reject(error);
        else resolve();
      });
      server.closeIdleConnections();
    });
    return closing;
  };
  return { server, port, close };
}

/** The options the caller set, so an explicit `undefined` does not hide a default. */
function definedOnly(options: HttpServerOptions): Partial<HttpServerOptions> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
}
