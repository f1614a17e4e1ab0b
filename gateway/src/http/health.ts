import { checkHealth } from '@masthead/core/grpc';
import { Router, type RequestHandler } from 'express';
import type { ServiceName } from '../clients.js';

/**
 * The paths the health router may serve (express matches them case-insensitively, with a trailing
 * slash; this admits a few more, which the router then refuses as before). Every other request skips the router: one that enters a router and matches none
 * of its routes leaves it only on the next turn of the event loop (a `setImmediate`).
 */
const HEALTH_PATH = /^\/(?:healthz|readyz)\/*$/i;

/**
 * `/healthz`: the process is alive. `/readyz`: every service answers its health check, and the
 * gateway is not draining (`draining()`, after SIGTERM).
 */
export function healthRouter(addresses: Record<ServiceName, string>, draining: () => boolean = () => false): RequestHandler {
  const router = healthRoutes(addresses, draining);
  return (req, res, next) => (HEALTH_PATH.test(req.path) ? router(req, res, next) : next());
}

function healthRoutes(addresses: Record<ServiceName, string>, draining: () => boolean): Router {
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
