import { runInCall } from '@masthead/core/grpc';
import { Router, type NextFunction, type Request, type Response } from 'express';
import type { SharedChecks } from '../auth/shared-checks.js';
import type { ServiceClients } from '../clients.js';
import { bodyDecoder } from '../http/body.js';
import { isMultipart, readMultipartFile } from '../http/multipart.js';
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

/**
 * Mounts every route: its body read (within `limits`), shared checks with the route's policy,
 * then its handler (which narrows the context to its access class and decodes its request,
 * routes/define.ts). An upload (`multipart` routes) is read only once the checks have passed, so
 * that no unauthenticated caller makes the gateway read one. Every success is JSON (or a download).
 */
export function buildApiRouter(
  routes: readonly RouteDefinition[],
  checks: SharedChecks,
  clients: ServiceClients,
  limits: BodyLimits,
  hooks: RouterHooks = {},
): Router {
  const router = Router({ caseSensitive: true, strict: false });
  const readBody = bodyDecoder(limits.body);
  const readBodyButUpload = bodyDecoder(limits.body, { leaveMultipart: true });
  for (const route of routes) {
    const policy = ACCESS_CLASSES[route.access];
    const method = route.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete';
    const body = route.multipart ? readBodyButUpload : readBody;
    router[method](toExpressPath(route.path), body, (req: Request, res: Response, next: NextFunction) => {
      // Checks and handler call the services inside the request's call (ADR 0100).
      runInCall(req.call, () => checks.run(req, policy, `${route.method} ${route.path}`))
        .then(async (context) => {
          if (route.multipart && isMultipart(req)) req.uploadedFile = await readMultipartFile(req, res, limits.uploadFileBytes);
          const writer = route.method !== 'GET' ? context.caller.user?.id : undefined;
          try {
            const result = await runInCall(req.call, () => route.handler(context, req, clients));
            if (result.download) sendDownload(res, result.download);
            else if (result.json !== undefined)
              res
                .status(result.status ?? 200)
                .type('application/json')
                .send(result.json);
            else res.status(result.status ?? 200).json(result.body);
          } finally {
            if (writer !== undefined) hooks.memberMayHaveWritten?.(writer);
          }
        })
        .catch(next);
    });
  }
  return router;
}
