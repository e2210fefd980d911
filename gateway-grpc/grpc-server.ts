import { Server, type ServerOptions } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Core, Logger, ShortlinkMetrics } from '../core';
import { compileTrustProxy } from '../core/runtime';
import { closedCallGate } from './connection/closed-call-gate';
import {
  GRPC_CONNECTION_DEFAULTS,
  type GrpcConnectionLimits,
} from './connection/connection-limits';
import { listenForGrpc } from './connection/grpc-listener';
import { ShortLinkServiceService } from './generated/shortlink/v1/shortlink';
import { sendGrpcJsLogsTo } from './grpc-js-logs';
import { followStoreHealth } from './health-status';
import { createReflectionService } from './reflection';
import { createShortLinkService } from './shortlink-service';
import { withTolerantDecoding } from './tolerant-decoding';

export const SHORTLINK_SERVICE_NAME = 'shortlink.v1.ShortLinkService';
/** The health entries: the whole server ("") and the service. */
const HEALTH_SERVICES = ['', SHORTLINK_SERVICE_NAME] as const;

interface GrpcServerOptions {
  port: number;
  host: string;
  logger: Logger;
  /** How long a graceful shutdown may wait for in-flight calls before cutting them. */
  shutdownTimeoutMs?: number;
  /** Largest request accepted; a create request is a few hundred bytes (REST accepts 16 KiB). */
  maxReceiveMessageBytes?: number;
  /**
   * TRUST_PROXY: the proxies (hop count or addresses/subnets) whose `x-forwarded-for` metadata
   * names the client, the same rule as the REST gateway's; unset, the peer is the client.
   */
  trustProxy?: string | undefined;
  /** How often gRPC health asks the store whether it answers (5 s by default). */
  healthCheckIntervalMs?: number;
  /** When given, create and resolve calls are counted and timed. */
  metrics?: ShortlinkMetrics | undefined;
  /** What one client may hold, and for how long (GRPC_CONNECTION_DEFAULTS for any not given). */
  connectionLimits?: Partial<GrpcConnectionLimits> | undefined;
  /** Bind with SO_REUSEPORT beside the other WORKERS workers (see `workersReusePort`). */
  reusePort?: boolean;
}

export interface RunningGrpcServer {
  server: Server;
  port: number;
  health: HealthImplementation;
  /** NOT_SERVING, stop taking calls, let in-flight ones finish (bounded), then stop. */
  close(): Promise<void>;
}

/**
 * The calls one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). grpc-js
 * announces no bound by default, so one connection could hold thousands of calls that never send
 * their message, each in memory with no deadline; RFC 9113 recommends allowing at least 100.
 */
export const MAX_CONCURRENT_STREAMS = 128;

/** The limits given, each unset one at its default. */
function connectionLimits(given: Partial<GrpcConnectionLimits> = {}): GrpcConnectionLimits {
  const set = Object.entries(given).filter(([, value]) => value !== undefined);
  return { ...GRPC_CONNECTION_DEFAULTS, ...Object.fromEntries(set) };
}

/** grpc-js's own connection bounds: idle and age (with grace); 0 leaves one off. */
function grpcJsConnectionOptions(limits: GrpcConnectionLimits): ServerOptions {
  return {
    ...(limits.maxConnectionIdleMs > 0 && {
      'grpc.max_connection_idle_ms': limits.maxConnectionIdleMs,
    }),
    ...(limits.maxConnectionAgeMs > 0 && {
      'grpc.max_connection_age_ms': limits.maxConnectionAgeMs,
      'grpc.max_connection_age_grace_ms': limits.maxConnectionAgeGraceMs,
    }),
  };
}

/**
 * The gRPC gateway: shortlink.v1.ShortLinkService on `core`, grpc.health.v1.Health and server
 * reflection, listening on `host:port` (port 0: any free port) without TLS.
 */
export async function listenGrpc(
  core: Core,
  options: GrpcServerOptions,
): Promise<RunningGrpcServer> {
  const { logger } = options;
  sendGrpcJsLogsTo(logger);
  const limits = connectionLimits(options.connectionLimits);
  const gate = closedCallGate();
  const server = new Server({
    'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? 64 * 1024,
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
    ...grpcJsConnectionOptions(limits),
    interceptors: [gate.interceptor],
  });
  server.addService(
    withTolerantDecoding(ShortLinkServiceService),
    createShortLinkService(
      core,
      logger,
      options.trustProxy === undefined ? undefined : compileTrustProxy(options.trustProxy),
      options.metrics,
    ),
  );
  const health = new HealthImplementation(
    Object.fromEntries(HEALTH_SERVICES.map((service) => [service, 'NOT_SERVING'])),
  );
  health.addToServer(server);
  createReflectionService().addToServer(server);

  const listener = await listenForGrpc(server, {
    host: options.host,
    port: options.port,
    limits,
    logger,
    reusePort: options.reusePort ?? false,
    onHttp2Server: (http2Server) => gate.watch(http2Server),
  });
  const { port } = listener;
  // The server runs even when the store does not answer (it may come back); health says so.
  const storeHealth = followStoreHealth(
    health,
    HEALTH_SERVICES,
    core,
    logger,
    options.healthCheckIntervalMs,
  );
  await storeHealth.check();

  let closing: Promise<void> | undefined;
  const close = () => {
    closing ??= new Promise<void>((resolve) => {
      storeHealth.stop();
      const allClosed = listener.stopAccepting();
      let stopped = false;
      const stop = () => {
        if (stopped) return;
        stopped = true;
        clearTimeout(fallback);
        resolve();
      };
      // The server has stopped once every connection has closed, which is what this waits for.
      // tryShutdown's callback cannot tell: grpc-js never calls back for a session it finds
      // destroyed but not yet closed, and on Node 24 it calls back at once for the connection
      // injector's sessions, while their calls still run. Health Watch streams and slow calls
      // would hold the connections forever: bound it.
      const fallback = setTimeout(() => {
        logger.warn('gRPC calls still running at the shutdown deadline; cutting them');
        server.forceShutdown();
        listener.destroyAll();
        stop();
      }, options.shutdownTimeoutMs ?? 5000);
      server.tryShutdown((error) => {
        if (error) logger.warn({ err: error }, 'gRPC graceful shutdown failed');
      });
      void allClosed.then(stop);
    });
    return closing;
  };
  return { server, port, health, close };
}
