import { checkHealth } from '@masthead/core/grpc';
import { Router } from 'express';
import type { ServiceName } from '../clients.js';

/**
 * `/healthz`: the process is alive. `/readyz`: every service answers its health check, and the
 * gateway is not draining (`draining()`, after SIGTERM).
 */
export function healthRouter(addresses: Record<ServiceName, string>, draining: () => boolean = () => false): Router {
  const router = Router();
  router.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  router.get('/readyz', (req, res, next) => {
    if (draining()) {
      res.status(503).json({ error: 'not_ready', error_description: 'The gateway is shutting down', req_guid: req.requestId });
      return;
    }
    const names = Object.keys(addresses) as ServiceName[];
    Promise.all(names.map((name) => checkHealth(addresses[name], 1000)))
      .then((results) => {
        const services = Object.fromEntries(names.map((name, index) => [name, results[index] ? 'serving' : 'unavailable']));
        const ready = results.every(Boolean);
        if (ready) res.json({ status: 'ready', services });
        else
          res
            .status(503)
            .json({ error: 'not_ready', error_description: 'Some services are unavailable', req_guid: req.requestId, services });
      })
      .catch(next);
  });
  return router;
}
