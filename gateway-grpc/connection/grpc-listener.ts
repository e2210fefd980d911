import type { Http2Server, ServerHttp2Session } from 'node:http2';
import { createServer, type AddressInfo, type Socket } from 'node:net';
import { ServerCredentials, type Server } from '@grpc/grpc-js';
import type { Logger } from '../../core';
import { limitConnectionsPerAddress, listenOptions } from '../../core/runtime';
import { keepMalformedMetadata } from '../raw-metadata';
import type { GrpcConnectionLimits } from './connection-limits';
import { GrpcConnection } from './grpc-connection';

interface GrpcListener {
  port: number;
  /**
   * Stops accepting connections; those open are left to grpc-js's shutdown. Resolves once every
   * connection has closed.
   */
  stopAccepting(): Promise<void>;
  /** Destroys every connection still open (after a shutdown's deadline). */
  destroyAll(): void;
}

/**
 * The HTTP/2 server grpc-js made for `createConnectionInjector`, which the injector does not
 * expose: the newest entry of grpc-js's private `http2Servers` map (grpc-js 1.14). Its events
 * are the only way to see a session and the raw headers, so without it the gateway cannot bound
 * connections or see dropped keys, and refuses to start.
 */
function injectorHttp2Server(server: Server): Http2Server {
  const servers = (server as unknown as { http2Servers?: unknown }).http2Servers;
  const newest =
    servers instanceof Map ? [...(servers.keys() as Iterable<unknown>)].at(-1) : undefined;
  if (newest === undefined) {
    throw new Error(
      'this @grpc/grpc-js keeps no http2Servers map: the gRPC gateway cannot bound its connections (it was written for grpc-js 1.14)',
    );
  }
  return newest as Http2Server;
}

/**
 * Listens on `host:port` with a socket server of its own and hands each accepted connection to
 * `server` (grpc-js's connection injector), so every connection is bounded from its first byte:
 * the per-address cap, the handshake deadline, keepalive enforcement, each call's request
 * deadline (GrpcConnection), and the idempotency keys node would drop seen as sent.
 */
export async function listenForGrpc(
  server: Server,
  options: {
    host: string;
    port: number;
    limits: GrpcConnectionLimits;
    logger: Logger;
    /** Bind with SO_REUSEPORT beside the other WORKERS workers (see `workersReusePort`). */
    reusePort?: boolean;
    /** Told of the HTTP/2 server grpc-js serves the connections with, before any arrives. */
    onHttp2Server?: (http2Server: Http2Server) => void;
  },
): Promise<GrpcListener> {
  const { limits, logger } = options;
  const injector = server.createConnectionInjector(ServerCredentials.createInsecure());
  const http2Server = injectorHttp2Server(server);
  options.onHttp2Server?.(http2Server);
  const connections = new WeakMap<ServerHttp2Session, GrpcConnection>();
  const sockets = new Set<Socket>();
  // The connection being handed over: node makes its session synchronously, during the handover.
  let handingOver: GrpcConnection | undefined;
  let accepting = true;

  http2Server.prependListener('session', (session: ServerHttp2Session) => {
    if (handingOver === undefined) return;
    connections.set(session, handingOver);
    handingOver.attach(session);
  });
  keepMalformedMetadata(http2Server, (stream) =>
    connections.get(stream.session as ServerHttp2Session)?.droppedKeyValues(stream.id ?? 0),
  );
  // After grpc-js's own listener, which has started reading the call.
  http2Server.on('stream', (stream, headers) => {
    const path = headers[':path'];
    connections.get(stream.session as ServerHttp2Session)?.callStarted(stream, path);
  });

  const listener = createServer({ noDelay: true });
  if (limits.maxConnectionsPerAddress > 0) {
    limitConnectionsPerAddress(listener, limits.maxConnectionsPerAddress);
  }
  listener.on('connection', (socket: Socket) => {
    // Refused by the per-address cap (its listener runs first), or arriving while closing.
    if (socket.destroyed) return;
    if (!accepting) {
      socket.destroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    const connection = new GrpcConnection(socket, limits, logger);
    handingOver = connection;
    try {
      injector.injectConnection(connection.transport);
    } finally {
      handingOver = undefined;
    }
  });

  await new Promise<void>((resolve, reject) => {
    listener.once('error', reject);
    listener.listen(listenOptions(options.port, options.host, options.reusePort), () => {
      listener.off('error', reject);
      resolve();
    });
  });
  listener.on('error', (error) => logger.error({ err: error }, 'gRPC listener failed'));
  return {
    port: (listener.address() as AddressInfo).port,
    stopAccepting: () => {
      accepting = false;
      return new Promise<void>((resolve) => listener.close(() => resolve()));
    },
    destroyAll: () => {
      for (const socket of sockets) socket.destroy();
    },
  };
}
