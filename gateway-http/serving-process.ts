import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { AggregatorRegistry } from 'prom-client';
import {
  isWorkersListening,
  WORKER_READY,
  WORKER_ROLE_ENV,
  workersReusePort,
  type WorkerReady,
} from '../core/runtime';
import { demoBanner } from './demo-banner';
import { startService } from './service';
import type { ServiceSettings } from './service-settings';
import { heedStopSignals, stopOnSignals } from './stop-signals';

/** A process that serves requests: the only one, or one WORKERS worker. */
export async function serveInThisProcess(settings: ServiceSettings, logger: Logger): Promise<void> {
  // A worker hears them from its start (see heedStopSignals); one process only once it serves, so
  // that a signal during its start-up (a backend that does not answer) still ends it at once.
  const onWorkerStop = cluster.isWorker ? heedStopSignals(logger) : undefined;
  // With WORKERS the first worker alone provisions: the demo, and the seed file, which a later
  // worker (a crashed one's replacement above all) must not apply again while the service runs.
  const firstProcess = !cluster.isWorker || process.env[WORKER_ROLE_ENV] === 'first';
  const service = await startService(settings, logger, {
    mayProvisionDemo: firstProcess,
    reusePort: cluster.isWorker && workersReusePort(),
    awaitingWorkers: cluster.isWorker,
    runtimeOptions: {
      localLimits: cluster.isWorker ? 'cluster' : 'process',
      applySeedFile: firstProcess,
    },
  });
  stopOnSignals(
    settings.SHUTDOWN_TIMEOUT_MS,
    logger,
    service,
    onWorkerStop ?? heedStopSignals(logger),
  );
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
      demoBanner(service.demo, settings, service.http.port, service.grpc.port) + '\n',
    );
  }
  if (cluster.isWorker) {
    const onListening = (message: unknown) => {
      if (!isWorkersListening(message)) return;
      process.off('message', onListening);
      service.readiness.awaitingWorkers = false;
    };
    process.on('message', onListening);
    const ready: WorkerReady = {
      type: WORKER_READY,
      ports: { http: service.http.port, grpc: service.grpc.port },
    };
    process.send?.(ready);
  }
}
