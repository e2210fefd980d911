import cluster from 'node:cluster';
import closeWithGrace from 'close-with-grace';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import {
  listenFailure,
  claimServedDataDir,
  loadConfig,
  refuseUnsharedStore,
  reservePort,
  startService as startComposedService,
  STOP_SIGNALS,
  superviseWorkers,
  WORKER_READY,
  WORKER_ROLE_ENV,
  workersReusePort,
  type Config,
  type RunningService,
  type ServiceOptions,
  type WorkerReady,
} from '../core/runtime';
import {
  grpcGateway,
  loadGrpcConfig,
  type GrpcConfig,
  type RunningGrpcServer,
} from '../gateway-grpc';
import { demoBanner } from './demo-banner';
import { loadHttpConfig, type HttpConfig } from './http-config';
import type { RunningHttpServer } from './http-server';
import { createLogger } from './logger';
import { metricsAddress, metricsGateway, type MetricsSettings } from './metrics-gateway';
import { listenMetrics, type RunningMetricsServer } from './metrics-server';
import { restGateway } from './rest-gateway';
import { readyWorkersMetrics } from './workers-metrics';

/** The entry point, and the only module that knows both gateways. */

type Gateways = {
  http: RunningHttpServer;
  grpc: RunningGrpcServer;
  /** GET /metrics; absent with METRICS_PORT=0, and in WORKERS workers (their primary serves it). */
  metrics?: RunningMetricsServer;
};
export type Service = RunningService<Gateways>;

/** The metrics server's settings, from the core's configuration. */
function metricsSettings(config: Config): MetricsSettings {
  return {
    port: config.METRICS_PORT,
    host: config.METRICS_HOST,
    maxConcurrentScrapes: config.METRICS_MAX_CONCURRENT_SCRAPES,
  };
}

/** Every gateway of the service, each with its own settings read from `env`. */
function gateways(
  env: NodeJS.ProcessEnv,
  config: Config,
  logger: Logger,
): ServiceOptions<Gateways>['gateways'] {
  const serveMetrics = config.METRICS_PORT !== 0 && !cluster.isWorker;
  return {
    http: restGateway(loadHttpConfig(env), logger),
    grpc: grpcGateway(loadGrpcConfig(env)),
    ...(serveMetrics && {
      metrics: metricsGateway(metricsSettings(config), logger),
    }),
  };
}

/**
 * The whole service in this process, configured from `env`: what one worker (or the only
 * process) runs. Tests and the bench start it in-process through this.
 */
export async function startService(
  env: NodeJS.ProcessEnv,
  logger: Logger,
  options: Omit<ServiceOptions<Gateways>, 'gateways' | 'linkGateway'> = {},
): Promise<Service> {
  const config = loadConfig(env);
  return startComposedService(config, logger, {
    gateways: gateways(env, config, logger),
    linkGateway: 'http',
    ...options,
  });
}

/**
 * Stops the service on SIGTERM, SIGINT or SIGHUP (and on a crash), within SHUTDOWN_TIMEOUT_MS.
 * The stop signals are heard by heedStopSignals; close-with-grace handles a crash and the deadline.
 */
function stopOnSignals(
  config: Config,
  logger: Logger,
  service: Service,
  /** Where the stop signals heard since the process started are answered. */
  onStop: (stop: () => void) => void,
): void {
  const grace = closeWithGrace(
    { delay: config.SHUTDOWN_TIMEOUT_MS, logger, skip: [...STOP_SIGNALS] },
    async ({ err }) => {
      if (err) logger.error({ err }, 'shutting down after an error');
      await service.shutdown();
    },
  );
  onStop(() => void grace.close());
}

/**
 * The stop signals of a serving process (one process, or a worker). A worker hears them from its
 * first moment: one that comes while it is still starting (a replacement of a crashed worker, when
 * the primary is stopped) is held until the service runs, which then stops at once; unheard, it
 * ended the worker mid-start. Repeated signals are the same stop: a terminal's Ctrl-C reaches the
 * process from the terminal and again from npm, which forwards it (the server runs in place of
 * npm's shell), and a worker's from its primary too. close-with-grace would take the second one
 * as "exit now" and cut the drain short; the drain is bounded by SHUTDOWN_TIMEOUT_MS anyway.
 */
function heedStopSignals(logger: Logger): (stop: () => void) => void {
  let heard = false;
  let stopNow: (() => void) | undefined;
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (heard) return;
      heard = true;
      logger.info({ signal }, 'shutting down');
      stopNow?.();
    });
  }
  return (stop) => {
    stopNow = stop;
    if (heard) stop();
  };
}

/**
 * With SO_REUSEPORT the primary reserves both gateways' ports before forking (see reservePort):
 * a port in use is refused as one process refuses it, and port 0 becomes one free port, which every
 * worker is given as its PORT or GRPC_PORT. Without, the workers share the primary's sockets and
 * nothing is reserved.
 */
async function reserveWorkerPorts(
  http: HttpConfig,
  grpc: GrpcConfig,
): Promise<Record<string, string>> {
  if (!workersReusePort()) return {};
  const reserve = async (name: string, host: string, port: number, portSetting: string) =>
    String(
      await reservePort(host, port).catch((error: unknown) => {
        throw listenFailure({ name, host, port, portSetting }, error);
      }),
    );
  return {
    PORT: await reserve('REST', http.HOST, http.PORT, 'PORT'),
    GRPC_PORT: await reserve('gRPC', grpc.HOST, grpc.GRPC_PORT, 'GRPC_PORT'),
  };
}

/** `npm start`: one process, or with WORKERS > 1 a primary and its workers. */
async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.LOG_LEVEL);
  if (cluster.isPrimary && config.WORKERS > 1) {
    refuseUnsharedStore(config);
    // Settings errors are reported once, here, rather than by every worker.
    const workerEnv = await reserveWorkerPorts(loadHttpConfig(), loadGrpcConfig());
    // The primary claims DATA_DIR for the whole cluster (it holds the cluster's rate limits);
    // the kernel releases the claim when it exits, however it exits.
    const claim = await claimServedDataDir(config, logger);
    // One scrape of the primary answers for every worker: it asks each worker that has started
    // for its registry over the cluster channel and sums the samples (prom-client's aggregation).
    const metrics =
      config.METRICS_PORT === 0
        ? undefined
        : await listenMetrics(readyWorkersMetrics(), {
            ...metricsSettings(config),
            logger,
          }).catch((error: unknown) => {
            throw listenFailure(metricsAddress(metricsSettings(config)), error);
          });
    if (metrics)
      logger.info({ port: metrics.port, host: config.METRICS_HOST }, 'metrics gateway listening');
    const supervisor = await superviseWorkers({
      workers: config.WORKERS,
      shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS,
      logger,
      workerEnv,
    }).catch(async (error: unknown) => {
      await metrics?.close();
      throw error;
    });
    const code = await supervisor.stopped;
    await metrics?.close();
    await claim.release();
    process.exit(code);
  }

  // A worker hears them from its start (see heedStopSignals); one process only once it serves, so
  // that a signal during its start-up (a backend that does not answer) still ends it at once.
  const onWorkerStop = cluster.isWorker ? heedStopSignals(logger) : undefined;
  // With WORKERS the first worker alone provisions: the demo, and the seed file, which a later
  // worker (a crashed one's replacement above all) must not apply again while the service runs.
  const firstProcess = !cluster.isWorker || process.env[WORKER_ROLE_ENV] === 'first';
  const service = await startService(process.env, logger, {
    mayProvisionDemo: firstProcess,
    reusePort: cluster.isWorker && workersReusePort(),
    runtimeOptions: {
      localLimits: cluster.isWorker ? 'cluster' : 'process',
      applySeedFile: firstProcess,
    },
  });
  stopOnSignals(config, logger, service, onWorkerStop ?? heedStopSignals(logger));
  if (cluster.isWorker && service.runtime.metrics) {
    // What this worker answers when its primary's aggregator asks: its own registry, not
    // prom-client's global one. prom-client installs the worker's answering listener when an
    // AggregatorRegistry is built, so one is built here, though only the primary's aggregates.
    AggregatorRegistry.setRegistries([service.runtime.metrics.registry]);
    new AggregatorRegistry();
  }
  // Printed to stdout, not logged: the demo secrets are shown once, as the contract asks.
  if (service.demo) {
    process.stdout.write(
      demoBanner(service.demo, config, service.http.port, service.grpc.port) + '\n',
    );
  }
  if (cluster.isWorker) {
    const ready: WorkerReady = {
      type: WORKER_READY,
      ports: { http: service.http.port, grpc: service.grpc.port },
    };
    process.send?.(ready);
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`shortlink failed to start: ${message}\n`);
    process.exit(1);
  });
}
