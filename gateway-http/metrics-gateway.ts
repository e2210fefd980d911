import type { Logger } from 'pino';
import type { GatewayFactory } from '../core/runtime';
import { listenMetrics, type MetricsSource, type RunningMetricsServer } from './metrics-server';

/** The metrics server's settings (METRICS_PORT, METRICS_HOST, METRICS_MAX_CONCURRENT_SCRAPES). */
export interface MetricsSettings {
  port: number;
  host: string;
  maxConcurrentScrapes: number;
}

/** What the metrics server binds, and the settings that chose it (named when it cannot). */
export function metricsAddress(settings: Pick<MetricsSettings, 'port' | 'host'>) {
  return {
    name: 'metrics',
    host: settings.host,
    hostSetting: 'METRICS_HOST',
    port: settings.port,
    portSetting: 'METRICS_PORT',
  };
}

/**
 * GET /metrics as the composition root starts it, beside the gateways (started after them and
 * closed with them). `source` is this process's registry, or, in a WORKERS primary, prom-client's
 * cluster aggregator; undefined means the runtime measures nothing (METRICS_PORT=0).
 */
export function metricsGateway(
  settings: MetricsSettings,
  logger: Logger,
  source?: MetricsSource,
): GatewayFactory<RunningMetricsServer> {
  return (context) => ({
    ...metricsAddress(settings),
    listen: () => {
      const registry = source ?? context.runtime.metrics?.registry;
      if (!registry) throw new Error('metrics are off (METRICS_PORT=0): nothing to serve');
      return listenMetrics(registry, {
        ...settings,
        logger,
        drainTimeoutMs: context.drainTimeoutMs,
      });
    },
  });
}
