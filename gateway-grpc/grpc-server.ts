import { Server, ServerCredentials } from '@grpc/grpc-js';
import { HealthImplementation } from 'grpc-health-check';
import type { Core, Logger, ShortlinkMetrics } from '../core';
import { compileTrustProxy } from '../core/runtime';
import { ShortLinkServiceService } from './generated/shortlink/v1/shortlink';
import { sendGrpcJsLogsTo } from './grpc-js-logs';
import { followStoreHealth } from './health-status';
import { keepMalformedMetadata } from './raw-metadata';
import { createReflectionService } from './reflection';
import { createShortLinkService } from './shortlink-service';
import { withTolerantDecoding } from './tolerant-decoding';

export const SHORTLINK_SERVICE_NAME = 'shortlink.v1.ShortLinkService';
/** The health entries: the whole server ("") and the service. */
const HEALTH_SERVICES = ['', SHORTLINK_SERVICE_NAME] as const;

export interface GrpcServerOptions {
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
}

export interface RunningGrpcServer {
  server: Server;
  port: number;
  health: HealthImplementation;
  /** NOT_SERVING, stop taking calls, let in-flight ones finish (bounded), then stop. */
  close(): Promise<void>;
}

function bindAddress(host: string, port: number): string {
  return host.includes(':') && !host.startsWith('[') ? `[${host}]:${port}` : `${host}:${port}`;
}

function bind(server: Server, address: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.bindAsync(address, ServerCredentials.createInsecure(), (error, port) =>
      error ? reject(error) : resolve(port),
    );
  });
}

/**
 * The calls one HTTP/2 connection may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). grpc-js
 * announces no bound by default, so one connection could hold thousands of calls that never send
 * their message, each in memory with no deadline; RFC 9113 recommends allowing at least 100.
 */
export const MAX_CONCURRENT_STREAMS = 128;

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
  const server = new Server({
    'grpc.max_receive_message_length': options.maxReceiveMessageBytes ?? 64 * 1024,
    'grpc.max_concurrent_streams': MAX_CONCURRENT_STREAMS,
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

  const port = await bind(server, bindAddress(options.host, options.port));
  if (!keepMalformedMetadata(server)) {
    logger.warn(
      'this grpc-js hides its HTTP/2 servers: a malformed idempotency-key or authorization may be dropped',
    );
  }
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
      // Health Watch streams and slow calls would hold tryShutdown forever: bound it.
      const fallback = setTimeout(() => {
        logger.warn('gRPC calls still running at the shutdown deadline; cutting them');
        server.forceShutdown();
      }, options.shutdownTimeoutMs ?? 5000);
      server.tryShutdown((error) => {
        clearTimeout(fallback);
        if (error) logger.warn({ err: error }, 'gRPC graceful shutdown failed');
        resolve();
      });
    });
    return closing;
  };
  return { server, port, health, close };
}
