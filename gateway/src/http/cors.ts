import { runInCall } from '@masthead/core/grpc';
import type { NextFunction, Request, Response } from 'express';
import type { ResourceDirectory } from '@masthead/core/resources';

/** The credential headers of document 1 (Authentication), which browsers must be allowed to send. */
const ALLOWED_HEADERS = 'content-type, resource, token, idp-token, session, source-type, service-api-key';
const ALLOWED_METHODS = 'GET, POST, PUT, DELETE, OPTIONS';
const PREFLIGHT_MAX_AGE_SECONDS = '600';

/**
 * CORS with allowed origins per resource. A preflight carries no resource key, so it is answered
 * for any origin some resource (or the global list) allows; the actual request is then answered
 * only for an origin allowed by the resource it names.
 */
export function cors(resources: ResourceDirectory, globalOrigins: readonly string[]) {
  const isAllowed = async (req: Request, origin: string): Promise<boolean> => {
    if (globalOrigins.includes(origin)) return true;
    const key = typeof req.headers['resource'] === 'string' ? req.headers['resource'].trim() : '';
    if (key && req.method !== 'OPTIONS') {
      const resource = await resources.resolve(key);
      return !!resource && (resource.origin === origin || resource.allowedOrigins.includes(origin));
    }
    return (await resources.allowedOrigins()).includes(origin);
  };

  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (!origin) return next();
    runInCall(req.call, () => isAllowed(req, origin)).then(
      (allowed) => {
        res.vary('Origin');
        if (allowed) {
          res.setHeader('Access-Control-Allow-Origin', origin);
          res.setHeader('Access-Control-Expose-Headers', 'x-request-id');
        }
        if (req.method !== 'OPTIONS') return next();
        if (allowed) {
          res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
          res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
          res.setHeader('Access-Control-Max-Age', PREFLIGHT_MAX_AGE_SECONDS);
        }
        // Every answer has a JSON body, preflights included (browsers ignore it).
        res
          .status(allowed ? 200 : 403)
          .json(allowed ? {} : { error: 'cors_origin_not_allowed', error_description: 'Origin not allowed', req_guid: req.requestId });
      },
      (error: unknown) => next(error),
    );
  };
}
