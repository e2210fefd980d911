import type { RequestListener } from 'node:http';
import type { Logger } from 'pino';
import { DEFAULT_METRICS_MAX_CONCURRENT_SCRAPES } from '../core/runtime';
import { listenHttp, type RunningHttpServer } from './http-server';

const METRICS_PATH = '/metrics';

/** What can be scraped: a prom-client Registry, or the cluster aggregator in a primary. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export type RunningMetricsServer = RunningHttpServer;

interface MetricsServerOptions {
  port: number;
  host: string;
  logger: Logger;
  /** Scrapes collected at once (METRICS_MAX_CONCURRENT_SCRAPES); one more is answered 503. */
  maxConcurrentScrapes?: number;
  /** How long close() lets a scrape in progress finish (the gateways' drain time). */
  drainTimeoutMs?: number | undefined;
}

const TEXT = 'text/plain; charset=utf-8';

/**
 * GET /metrics in the Prometheus text format on its own port and address (METRICS_HOST), so the
 * REST port never exposes it and a scraper can be let in by network rules alone. One route needs
 * no framework, but the server is the REST port's (`listenHttp`): the same request, header and
 * keep-alive timeouts and header limits, so a client that opens connections and sends nothing, or
 * a request byte by byte, holds nothing for long. Collections are bounded: past
 * `maxConcurrentScrapes` (METRICS_MAX_CONCURRENT_SCRAPES) a scrape is refused at once, 503 with `Retry-After: 1`, rather than
 * queued. `port` 0 binds any free port (the METRICS_PORT=0 "off" is decided by the caller).
 */
export function listenMetrics(
  source: MetricsSource,
  options: MetricsServerOptions,
): Promise<RunningMetricsServer> {
  const most = options.maxConcurrentScrapes ?? DEFAULT_METRICS_MAX_CONCURRENT_SCRAPES;
  let collecting = 0;
  const onRequest: RequestListener = (req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': TEXT }).end('Not found.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': TEXT })
        .end('Method not allowed; use GET.\n');
      return;
    }
    if (collecting >= most) {
      res
        .writeHead(503, { 'Retry-After': '1', 'Content-Type': TEXT, 'Cache-Control': 'no-store' })
        .end(`Too many scrapes at once (at most ${most}); try again.\n`);
      return;
    }
    // Counted until the collection ends, not the answer: a scraper that hangs up does not free
    // its slot while its collection still runs.
    collecting += 1;
    source
      .metrics()
      .finally(() => (collecting -= 1))
      .then(
        (text) => {
          res.writeHead(200, { 'Content-Type': source.contentType, 'Cache-Control': 'no-store' });
          res.end(req.method === 'HEAD' ? undefined : text);
        },
        (error: unknown) => {
          options.logger.error({ err: error }, 'collecting metrics failed');
          res.writeHead(500, { 'Content-Type': TEXT });
          res.end('Collecting metrics failed.\n');
        },
      );
  };
  return listenHttp(onRequest, {
    port: options.port,
    host: options.host,
    drainTimeoutMs: options.drainTimeoutMs,
  });
}
