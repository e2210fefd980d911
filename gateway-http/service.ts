import cluster from 'node:cluster';
import type { Logger } from 'pino';
import { serveGateways, type RunningService, type ServiceOptions } from '../core/runtime';
import { grpcGateway, type RunningGrpcServer } from '../gateway-grpc';
import type { RunningHttpServer } from './http-server';
import { metricsGateway, type MetricsSettings } from './metrics-gateway';
import type { RunningMetricsServer } from './metrics-server';
import { restGateway } from './rest-gateway';
import type { ServiceSettings } from './service-settings';

/**
 * The composition root: the one module that knows every gateway of the service. What one WORKERS
 * worker (or the only process) runs; tests and the bench start the service in process through it.
 */

type Gateways = {
  http: RunningHttpServer;
  grpc: RunningGrpcServer;
  /** GET /metrics; absent with METRICS_PORT=0, and in WORKERS workers (their primary serves it). */
  metrics?: RunningMetricsServer;
};
export type Service = RunningService<Gateways>;

/** The metrics server's settings. */
export function metricsSettings(settings: ServiceSettings): MetricsSettings {
  return {
    port: settings.METRICS_PORT,
    host: settings.METRICS_HOST,
    maxConcurrentScrapes: settings.METRICS_MAX_CONCURRENT_SCRAPES,
  };
}

/** Every gateway of the service, each given the settings it reads. */
function gateways(settings: ServiceSettings, logger: Logger): ServiceOptions<Gateways>['gateways'] {
  const serveMetrics = settings.METRICS_PORT !== 0 && !cluster.isWorker;
  return {
    http: restGateway(settings, logger),
    grpc: grpcGateway(settings),
    ...(serveMetrics && { metrics: metricsGateway(metricsSettings(settings), logger) }),
  };
}

/** The whole service in this process, with `settings` (read once, by loadServiceSettings). */
export async function startService(
  settings: ServiceSettings,
  logger: Logger,
  options: Omit<ServiceOptions<Gateways>, 'gateways' | 'linkGateway'> = {},
): Promise<Service> {
  return serveGateways(settings, logger, {
    gateways: gateways(settings, logger),
    linkGateway: 'http',
    ...options,
  });
}
