import type { Logger } from 'pino';
import type { GatewayFactory } from '../core/runtime';
import { listenMetrics, type MetricsSource, type RunningMetricsServer } from './metrics-server';

/** What the metrics server binds, and the setting that chose its port (named when it cannot). */
export function metricsAddress(settings: { port: number; host: string }) {
  return { name: 'metrics', host: settings.host, port: settings.port, portSetting: 'METRICS_PORT' };
}

/**
 * GET /metrics as the composition root starts it, beside the gateways (started after them and
 * closed with them). `source` is this process's registry, or, in a WORKERS primary, prom-client's
 * cluster aggregator; undefined means the runtime measures nothing (METRICS_PORT=0).
 */
export function metricsGateway(
  settings: { port: number; host: string },
  logger: Logger,
  source?: MetricsSource,
): GatewayFactory<RunningMetricsServer> {
  return (context) => ({
    ...metricsAddress(settings),
    listen: () => {
      const registry = source ?? context.runtime.metrics?.registry;
      if (!registry) throw new Error('metrics are off (METRICS_PORT=0): nothing to serve');
      return listenMetrics(registry, { port: settings.port, host: settings.host, logger });
    },
  });
}
