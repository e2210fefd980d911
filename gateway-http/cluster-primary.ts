import type { Logger } from 'pino';
import {
  claimServedDataDir,
  listenFailure,
  reservePort,
  superviseWorkers,
  workersReusePort,
} from '../core/runtime';
import { metricsAddress } from './metrics-gateway';
import { listenMetrics } from './metrics-server';
import { metricsSettings } from './service';
import type { ServiceSettings } from './service-settings';
import { readyWorkersMetrics } from './workers-metrics';

/**
 * With SO_REUSEPORT the primary reserves both gateways' ports before forking (see reservePort):
 * a port in use is refused as one process refuses it, and port 0 becomes one free port, which every
 * worker is given as its PORT or GRPC_PORT. Without, the workers share the primary's sockets and
 * nothing is reserved.
 */
async function reserveWorkerPorts(settings: ServiceSettings): Promise<Record<string, string>> {
  if (!workersReusePort()) return {};
  const reserve = async (name: string, port: number, portSetting: string) =>
    String(
      await reservePort(settings.HOST, port).catch((error: unknown) => {
        throw listenFailure({ name, host: settings.HOST, port, portSetting }, error);
      }),
    );
  return {
    PORT: await reserve('REST', settings.PORT, 'PORT'),
    GRPC_PORT: await reserve('gRPC', settings.GRPC_PORT, 'GRPC_PORT'),
  };
}

/**
 * The primary of `WORKERS` > 1: it serves no request. It claims DATA_DIR for the whole cluster,
 * serves the workers' metrics summed, forks and supervises the workers, and resolves with the
 * exit code once they have stopped.
 */
export async function runPrimary(settings: ServiceSettings, logger: Logger): Promise<number> {
  const workerEnv = await reserveWorkerPorts(settings);
  // The primary claims DATA_DIR for the whole cluster (it holds the cluster's rate limits);
  // the kernel releases the claim when it exits, however it exits.
  const claim = await claimServedDataDir(settings, logger);
  // One scrape of the primary answers for every worker: it asks each worker that has started
  // for its registry over the cluster channel and sums the samples (prom-client's aggregation).
  const metricsAt = metricsSettings(settings);
  const metrics =
    settings.METRICS_PORT === 0
      ? undefined
      : await listenMetrics(readyWorkersMetrics(), { ...metricsAt, logger }).catch(
          (error: unknown) => {
            throw listenFailure(metricsAddress(metricsAt), error);
          },
        );
  if (metrics) {
    logger.info({ port: metrics.port, host: settings.METRICS_HOST }, 'metrics gateway listening');
  }
  const supervisor = await superviseWorkers({
    workers: settings.WORKERS,
    shutdownTimeoutMs: settings.SHUTDOWN_TIMEOUT_MS,
    logger,
    workerEnv,
  }).catch(async (error: unknown) => {
    await metrics?.close();
    throw error;
  });
  const code = await supervisor.stopped;
  await metrics?.close();
  await claim.release();
  return code;
}
