import express, { type ErrorRequestHandler } from 'express';
import type { Logger } from 'pino';
import { ErrorCode, type Core, type ShortlinkMetrics } from '../core';
import { compileTrustProxy, type Readiness } from '../core/runtime';
import { createLinkHandler } from './create-route';
import { sendReason } from './envelope';
import { followLinkHandler } from './follow-route';
import { addHealthRoutes } from './health-routes';
import { DEFAULT_REDIRECT_CACHE_MAX_AGE } from './http-config';
import { addOpenApiRoutes } from './openapi/openapi-routes';
import { requestLogging } from './request-logging';
import { addServiceIndex } from './service-index';

export interface HttpAppOptions {
  logger: Logger;
  /** max-age of Cache-Control on 301/308 redirects. */
  redirectCacheMaxAge?: number;
  /** express's `trust proxy` setting, for the client address behind a load balancer. */
  trustProxy?: string | undefined;
  readiness?: Readiness;
  /** When given, create and follow requests are counted and timed. */
  metrics?: ShortlinkMetrics | undefined;
}

/** The REST gateway: parses HTTP, calls the core's procedures, renders the contract's answers. */
export function createHttpApp(core: Core, options: HttpAppOptions) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Paths are exact, as URLs and the OpenAPI document have them: /API/CREATE is no endpoint
  // (404, NOT_FOUND), not /api/create (express matches without regard to case by default), and
  // /DOCS is the alias "DOCS" (reserved, so never a link: 404). Likewise a trailing slash makes
  // another path (express ignores it by default): /api/create/ and /abc/ are 404, NOT_FOUND.
  app.set('case sensitive routing', true);
  app.set('strict routing', true);
  // The same compiled rule the gRPC gateway applies to its x-forwarded-for metadata.
  if (options.trustProxy !== undefined)
    app.set('trust proxy', compileTrustProxy(options.trustProxy));
  app.use(requestLogging(app, options.logger));

  addHealthRoutes(app, core, options.readiness ?? { accepting: true, awaitingWorkers: false });

  app.post('/api/create', createLinkHandler(core, options.metrics));
  const wrongMethod = options.metrics?.operation('rest', 'create');
  app.all('/api/create', (_req, res) => {
    const startedAt = performance.now();
    res.setHeader('Allow', 'POST');
    sendReason(res, 'METHOD_NOT_ALLOWED');
    wrongMethod?.observe(ErrorCode.METHOD_NOT_ALLOWED, startedAt);
  });
  // Everything else under /api, in any case: no endpoint there, ever (not an alias either).
  app.all(/^\/api(?:\/.*)?$/i, (_req, res) => {
    sendReason(res, 'NOT_FOUND');
  });

  addOpenApiRoutes(app);
  addServiceIndex(app);

  const follow = followLinkHandler(
    core,
    options.redirectCacheMaxAge ?? DEFAULT_REDIRECT_CACHE_MAX_AGE,
    options.metrics,
  );
  app.get('/:alias', follow); // express answers HEAD with the GET route, without a body

  app.use((_req, res) => {
    sendReason(res, 'NOT_FOUND', 'Not found.');
  });
  const lastResort: ErrorRequestHandler = (error: unknown, req, res, _next) => {
    // A path whose percent-encoding does not decode (express's URIError) names nothing.
    if (error instanceof URIError && !res.headersSent) {
      sendReason(res, 'NOT_FOUND', 'Not found.');
      return;
    }
    req.log.error({ err: error }, 'unhandled error');
    if (res.headersSent) {
      res.destroy();
      return;
    }
    sendReason(res, 'INTERNAL');
  };
  app.use(lastResort);
  return app;
}
