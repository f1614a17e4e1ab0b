import { runInCall } from '@masthead/core/grpc';
import { Router, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import type { SharedChecks } from '../auth/shared-checks.js';
import type { ServiceClients } from '../clients.js';
import { bodyDecoder } from '../http/body.js';
import { isMultipart, readMultipartFile } from '../http/multipart.js';
import { routeMatched } from '../http/metrics.js';
import { ACCESS_CLASSES } from './access.js';
import type { RouteDefinition } from './define.js';

/**
 * A binary answer (document 2 G: "binary PDF stream, not JSON … content type set to a
 * force-download type"): the browser saves it under `filename` instead of showing it.
 */
function sendDownload(res: Response, file: { filename: string; content: Uint8Array }): void {
  res
    .status(200)
    .set({
      'content-type': 'application/force-download',
      'content-disposition': `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '')}"`,
      'content-length': String(file.content.byteLength),
    })
    .end(Buffer.from(file.content.buffer, file.content.byteOffset, file.content.byteLength));
}

/** JSON text made beforehand, sent as `res.json` sends a body: the same headers. */
function sendJsonText(res: Response, status: number, text: string): void {
  res.status(status);
  if (!res.get('Content-Type')) res.set('Content-Type', 'application/json');
  res.send(text);
}

/** `/plans/{id}` → `/plans/:id` (express syntax). */
export const toExpressPath = (path: string): string => path.replace(/\{(\w+)\}/g, ':$1');

/** Body limits of the gateway's configuration (BODY_LIMIT, PHOTO_MAX_BYTES). */
export interface BodyLimits {
  /** Largest body of any route, as `1mb`, `512kb` or bytes with `b`. */
  body: string;
  /** Largest file of a multipart upload, on routes flagged `multipart`. */
  uploadFileBytes: number;
}

export interface RouterHooks {
  /**
   * Runs after every request of a signed-in member that may have written (any method but GET),
   * failed or not: the gateway's cached session checks of that member go, so the member's next
   * request through this gateway sees its own change (ADR 0042).
   */
  memberMayHaveWritten?(userId: number): void;
}

/** A path's segments after the leading slash (`/plans/{id}` → `['plans', '{id}']`). */
const segmentsOf = (path: string): string[] => path.split('/').slice(1);

/** A segment of a route's path that matches any text: it holds a parameter. */
const isParameter = (segment: string | undefined): boolean => segment === undefined || segment.includes('{');

/**
 * Mounts every route: its body read (within `limits`), shared checks with the route's policy,
 * then its handler (which narrows the context to its access class and decodes its request,
 * routes/define.ts). An upload (`multipart` routes) is read only once the checks have passed, so
 * that no unauthenticated caller makes the gateway read one. Every success is JSON (or a download).
 *
 * express tries a router's routes one by one, a regular expression each, so a request of the
 * table's last rows tested some 170 patterns. Requests are therefore dispatched on their first
 * two path segments to a router of only the routes that can match such a path, in the table's
 * order (so the same route wins, with the same params and the same `req.route`); a path no
 * prefix is known for goes to the router of all routes, which answers as before (ADR 0196).
 */
export function buildApiRouter(
  routes: readonly RouteDefinition[],
  checks: SharedChecks,
  clients: ServiceClients,
  limits: BodyLimits,
  hooks: RouterHooks = {},
): RequestHandler {
  const readBody = bodyDecoder(limits.body);
  const readBodyButUpload = bodyDecoder(limits.body, { leaveMultipart: true });
  const mount = (rows: readonly RouteDefinition[]): Router => {
    const router = Router({ caseSensitive: true, strict: false });
    for (const route of rows) {
      const policy = ACCESS_CLASSES[route.access];
      const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
      const body = route.multipart ? readBodyButUpload : readBody;
      router[method](toExpressPath(route.path), routeMatched, body, (req: Request, res: Response, next: NextFunction) => {
        // Checks and handler call the services inside the request's call (ADR 0100).
        runInCall(req.call, () => checks.run(req, policy, `${route.method} ${route.path}`))
          .then(async (context) => {
            if (route.multipart && isMultipart(req)) req.uploadedFile = await readMultipartFile(req, res, limits.uploadFileBytes);
            const writer = route.method !== 'GET' ? context.caller.user?.id : undefined;
            try {
              const result = await runInCall(req.call, () => route.handler(context, req, clients));
              if (result.download) sendDownload(res, result.download);
              else if (result.json !== undefined) sendJsonText(res, result.status ?? 200, result.json);
              else res.status(result.status ?? 200).json(result.body);
            } finally {
              if (writer !== undefined) hooks.memberMayHaveWritten?.(writer);
            }
          })
          .catch(next);
      });
    }
    return router;
  };

  const all = mount(routes);
  // A route can match a path only where each of its first two segments is that path's or a
  // parameter; a route of one segment matches no path with a second one.
  const byPrefix = new Map<string, Router>();
  for (const route of routes) {
    const [first, second] = segmentsOf(route.path);
    if (isParameter(first)) continue;
    const keys = isParameter(second) ? [first!] : [first!, `${first}/${second}`];
    for (const key of keys) {
      if (byPrefix.has(key)) continue;
      const [a, b] = key.split('/');
      const candidates = routes.filter((row) => {
        const [rowFirst, rowSecond] = segmentsOf(row.path);
        if (!isParameter(rowFirst) && rowFirst !== a) return false;
        return b === undefined || (rowSecond !== undefined && (isParameter(rowSecond) || rowSecond === b));
      });
      byPrefix.set(key, mount(candidates));
    }
  }
  return (req: Request, res: Response, next: NextFunction): void => {
    const [first, second] = segmentsOf(req.path);
    const router = (second ? byPrefix.get(`${first}/${second}`) : undefined) ?? (first ? byPrefix.get(first) : undefined) ?? all;
    router(req, res, next);
  };
}
