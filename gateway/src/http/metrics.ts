import { observeHttpRequest, renderMetrics } from '@masthead/core/metrics';
import type { NextFunction, Request, Response } from 'express';

/**
 * Rate, errors and duration of every request by route template (`/api/v1/plans/:id`, never the
 * raw path, which would make a series per ID); requests no route serves count as `unmatched`.
 * The template is the one `routeMatched` noted: by the time an error is rendered, express has
 * left the mounted router and `req.baseUrl` no longer holds its prefix.
 */
export function requestMetrics() {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const route = typeof res.locals['route'] === 'string' ? res.locals['route'] : 'unmatched';
      observeHttpRequest(req.method, route, res.statusCode, Number(process.hrtime.bigint() - started) / 1e9);
    });
    next();
  };
}

/** First handler of every route: notes its full template for `requestMetrics`. */
export function routeMatched(req: Request, res: Response, next: NextFunction): void {
  res.locals['route'] = `${req.baseUrl}${(req.route as { path: string }).path}`;
  next();
}

/** `GET /metrics` on the gateway's own port (docs/adr/0183); the ingress routes only /api. */
export function metricsEndpoint(_req: Request, res: Response, next: NextFunction): void {
  renderMetrics().then(({ contentType, body }) => {
    res.setHeader('content-type', contentType);
    res.send(body);
  }, next);
}
