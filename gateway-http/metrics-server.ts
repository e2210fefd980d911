import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import { serveUnusualRequests } from './unusual-requests';

const METRICS_PATH = '/metrics';

/** What can be scraped: a prom-client Registry, or the cluster aggregator in a primary. */
export interface MetricsSource {
  readonly contentType: string;
  metrics(): Promise<string>;
}

export interface RunningMetricsServer {
  server: Server;
  port: number;
  close(): Promise<void>;
}

/**
 * GET /metrics in the Prometheus text format on its own port, so the REST port never exposes
 * it and a scraper can be let in by network rules alone. Plain node:http: one route needs no
 * framework. `port` 0 binds any free port (the METRICS_PORT=0 "off" is decided by the caller).
 */
export function listenMetrics(
  source: MetricsSource,
  options: { port: number; host: string; logger: Logger },
): Promise<RunningMetricsServer> {
  const onRequest: RequestListener = (req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    if (path !== METRICS_PATH) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8' }).end('Not found.\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res
        .writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' })
        .end('Method not allowed; use GET.\n');
      return;
    }
    source.metrics().then(
      (text) => {
        res.writeHead(200, { 'Content-Type': source.contentType, 'Cache-Control': 'no-store' });
        res.end(req.method === 'HEAD' ? undefined : text);
      },
      (error: unknown) => {
        options.logger.error({ err: error }, 'collecting metrics failed');
        res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' });
        res.end('Collecting metrics failed.\n');
      },
    );
  };
  const server = createServer(onRequest);
  // As on the REST port: an unknown Expect is served, and CONNECT answered, as any request.
  serveUnusualRequests(server, onRequest);
  // Scrapes are short; an idle scraper connection must not hold shutdown.
  server.keepAliveTimeout = 5000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      const { port } = server.address() as AddressInfo;
      resolve({
        server,
        port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            server.closeIdleConnections();
          }),
      });
    });
  });
}
