import { notImplemented } from '@masthead/core/errors';
import { runInCall } from '@masthead/core/grpc';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { SharedChecks } from '../auth/shared-checks.js';
import type { ServiceClients } from '../clients.js';
import { ACCESS_CLASSES } from './access.js';
import type { RouteDefinition } from './table.js';

/** `/plans/{id}` → `/plans/:id` (express syntax). */
export const toExpressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

export interface RouterHooks {
  /**
   * Runs after every request of a signed-in member that may have written (any method but GET),
   * failed or not: the gateway's cached session checks of that member go, so the member's next
   * request through this gateway sees its own change (ADR 0042).
   */
  memberMayHaveWritten?(userId: number): void;
}

/**
 * Mounts every route: shared checks with the route's policy, then its handler. Every success
 * is JSON; an operation not built yet answers 501 in the envelope after its checks.
 */
export function buildApiRouter(
  routes: readonly RouteDefinition[],
  checks: SharedChecks,
  clients: ServiceClients,
  hooks: RouterHooks = {},
): Router {
  const router = Router({ caseSensitive: true, strict: false });
  for (const route of routes) {
    const policy = ACCESS_CLASSES[route.access];
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    router[method](toExpressPath(route.path), (req: Request, res: Response, next: NextFunction) => {
      // Checks and handler call the services inside the request's call (ADR 0100).
      runInCall(req.call, () => checks.run(req, policy, `${route.method} ${route.path}`))
        .then(async (context) => {
          const handler = route.handler;
          if (!handler) throw notImplemented(`${route.method} ${route.path}`);
          const writer = route.method !== 'GET' ? context.caller.user?.id : undefined;
          try {
            const result = await runInCall(req.call, () => handler(context, req, clients));
            res.status(result.status ?? 200).json(result.body);
          } finally {
            if (writer !== undefined) hooks.memberMayHaveWritten?.(writer);
          }
        })
        .catch(next);
    });
  }
  return router;
}
