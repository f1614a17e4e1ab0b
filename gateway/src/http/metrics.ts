import { observeHttpRequest, renderMetrics } from '@masthead/core/metrics';
import type { NextFunction, Request, Response } from 'express';

/**
 * Rate, errors and duration of every request by route template (`/api/v1/plans/:id`, never the
 * raw path, which would make a series per ID); requests no route serves count as `unmatched`.
 */
export function requestMetrics() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const template = (req.route as { path?: unknown } | undefined)?.path;
      const route = typeof template === 'string' ? `${req.baseUrl}${template}` : 'unmatched';
      observeHttpRequest(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/** `GET /metrics` on the gateway's own port (docs/adr/0183); the ingress routes only /api. */
export function metricsEndpoint(_req: Request, res: Response, next: NextFunction): void {
  renderMetrics().then(({ contentType, body }) => {
    res.setHeader('content-type', contentType);
    res.send(body);
  }, next);
}
