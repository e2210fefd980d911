import { Router } from 'express';
import type { Core } from '../core';

export interface Readiness {
  /** False once shutdown began, so load balancers stop sending traffic. */
  accepting: boolean;
}

/** /healthz: the process runs. /readyz: the store answers and the server is not draining. */
export function healthRoutes(core: Core, readiness: Readiness): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.status(200).json({ status: 'ok' });
  });
  router.get('/readyz', async (req, res) => {
    if (!readiness.accepting) {
      res.status(503).json({ status: 'shutting_down' });
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
  return router;
}
