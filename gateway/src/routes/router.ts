import { notImplemented } from '@masthead/core/errors';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { SharedChecks } from '../auth/shared-checks.js';
import type { ServiceClients } from '../clients.js';
import { ACCESS_CLASSES } from './access.js';
import type { RouteDefinition } from './define.js';

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
 * Mounts every route: shared checks with the route's policy, then its handler (which narrows
 * the context to its access class and decodes its request, routes/define.ts). Every success is
 * JSON; an operation not built yet answers 501 in the envelope after its checks.
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
      checks
        .run(req, policy, `${route.method} ${route.path}`)
        .then(async (context) => {
          if (!route.handler) throw notImplemented(`${route.method} ${route.path}`);
          const writer = route.method !== 'GET' ? context.caller.user?.id : undefined;
          try {
            const result = await route.handler(context, req, clients);
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
