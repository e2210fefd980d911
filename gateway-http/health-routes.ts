import type { Express } from 'express';
import type { Core } from '../core';
import type { Readiness } from '../core/runtime';

/**
 * /healthz: the process runs. /readyz: the store answers, the server is not draining, and (with
 * WORKERS) every worker listens.
 * Registered on the app itself: a mounted Router would be one more layer every request walks.
 */
export function addHealthRoutes(app: Express, core: Core, readiness: Readiness): void {
  app.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  app.get('/readyz', async (req, res) => {
    if (!readiness.accepting) {
      res.status(503).json({ status: 'shutting_down' });
      return;
    }
    if (readiness.awaitingWorkers) {
      res.status(503).json({ status: 'starting' });
      return;
    }
    try {
      await core.ready();
      res.status(200).json({ status: 'ready' });
    } catch (error) {
      req.log.warn({ err: error }, 'readiness check failed');
      res.status(503).json({ status: 'store_unavailable' });
    }
  });
}
