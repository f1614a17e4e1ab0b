import type { NextFunction, Request, Response } from 'express';
import { internalError, ServiceError } from '@masthead/core/errors';
import { bodyTooLarge, malformedPath, noRoute } from '../errors/request.js';
import type { Logger } from '@masthead/core/logging';

/** The spec's error body for a ServiceError (document 1, Errors). */
export function envelopeOf(error: ServiceError, requestId: string): unknown {
  if (error.body !== undefined) return error.body;
  if (error.fields) return { error: true, error_fields: error.fields, req_guid: requestId };
  return { error: error.code, error_description: error.description, req_guid: requestId };
}

/** The one error renderer: ServiceErrors become the envelope, anything else an opaque 500. */
export function errorRenderer(logger: Logger) {
  return (error: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const requestId = req.requestId ?? 'unknown';
    let serviceError: ServiceError;
    if (error instanceof ServiceError) {
      serviceError = error;
    } else if ((error as { type?: string })?.type === 'entity.too.large') {
      serviceError = bodyTooLarge();
    } else if (error instanceof URIError) {
      // The router could not percent-decode a path parameter: the client's mistake, not ours.
      serviceError = malformedPath();
    } else {
      logger.error({ err: error, req_guid: requestId, method: req.method, path: req.path }, 'unhandled error');
      serviceError = internalError();
    }
    if (serviceError.status >= 500) logger.warn({ req_guid: requestId, code: serviceError.code }, 'request failed');
    if (res.headersSent) return;
    res.status(serviceError.status).json(envelopeOf(serviceError, requestId));
  };
}

export function routeNotFound(req: Request, res: Response): void {
  res.status(404).json(envelopeOf(noRoute(req.method, req.path), req.requestId));
}
