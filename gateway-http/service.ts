import type { Logger } from 'pino';
import { createRuntime, type Config, type DemoCredentials, type Runtime } from '../core';
import { listenGrpc, type RunningGrpcServer } from '../gateway-grpc';
import { createHttpApp } from './app';
import { listenHttp, type RunningHttpServer } from './http-server';
import { expressMessageClasses } from './express-message-classes';
import { listenMetrics, type RunningMetricsServer } from './metrics-server';

export interface RunningService {
  runtime: Runtime;
  http: RunningHttpServer;
  /** The gRPC gateway on the same core (`grpc.port` is the bound port, useful with GRPC_PORT=0). */
  grpc: RunningGrpcServer;
  /** GET /metrics on METRICS_PORT; undefined when METRICS_PORT is 0. */
  metrics: RunningMetricsServer | undefined;
  /** The demo credentials, when the service started on the embedded store with no seed file. */
  demo: DemoCredentials | undefined;
  /** Stops taking new work, lets in-flight requests finish, then releases the backends. */
  shutdown(): Promise<void>;
}

/**
 * Builds the runtime from `config` and serves every gateway from it: REST and gRPC share one
 * core, so one token's rate limit is counted across both. Used by main.ts and by tests that need
 * the whole service in-process.
 */
export async function startService(config: Config, logger: Logger): Promise<RunningService> {
  const runtime = await createRuntime(config, logger);
  const readiness = { accepting: true };
  let http: RunningHttpServer;
  try {
    const app = createHttpApp(runtime.core, {
      logger,
      redirectCacheMaxAge: config.REDIRECT_CACHE_MAX_AGE,
      trustProxy: config.TRUST_PROXY,
      readiness,
      metrics: runtime.metrics,
    });
    http = await listenHttp(app, {
      port: config.PORT,
      host: config.HOST,
      maxConnectionsPerAddress: config.MAX_CONNECTIONS_PER_ADDRESS,
      // Leave room inside the process's shutdown deadline to release the backends.
      drainTimeoutMs: Math.floor(config.SHUTDOWN_TIMEOUT_MS * 0.8),
      messageClasses: expressMessageClasses(app),
    });
  } catch (error) {
    await runtime.close();
    throw error;
  }
  logger.info(
    { port: http.port, host: config.HOST, store: runtime.core.deps.store.kind },
    'REST gateway listening',
  );
  let grpc: RunningGrpcServer;
  try {
    grpc = await listenGrpc(runtime.core, {
      port: config.GRPC_PORT,
      host: config.HOST,
      logger,
      // Leaves time, within the process's own shutdown deadline, to release the backends.
      shutdownTimeoutMs: Math.floor(config.SHUTDOWN_TIMEOUT_MS / 2),
      metrics: runtime.metrics,
    });
  } catch (error) {
    await http.close();
    await runtime.close();
    throw error;
  }
  logger.info({ port: grpc.port, host: config.HOST }, 'gRPC gateway listening');
  let metrics: RunningMetricsServer | undefined;
  if (runtime.metrics) {
    try {
      metrics = await listenMetrics(runtime.metrics.registry, {
        port: config.METRICS_PORT,
        host: config.HOST,
        logger,
      });
    } catch (error) {
      await Promise.all([http.close(), grpc.close()]);
      await runtime.close();
      throw error;
    }
    logger.info({ port: metrics.port, host: config.HOST }, 'metrics listening');
  }
  // The demo's link domain is this server itself, so it is made once the port is known.
  const demo = runtime.wantsDemo ? await runtime.provisionDemo(http.port) : undefined;
  let stopping: Promise<void> | undefined;
  const shutdown = () => {
    stopping ??= (async () => {
      readiness.accepting = false;
      await Promise.all([http.close(), grpc.close(), metrics?.close()]);
      await runtime.close();
    })();
    return stopping;
  };
  return { runtime, http, grpc, metrics, demo, shutdown };
}
