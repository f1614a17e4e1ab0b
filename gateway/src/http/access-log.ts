import type { NextFunction, Request, Response } from 'express';
import type { Logger } from '@masthead/core/logging';

/** A one-time login token travels in the path (GET /auth/external/{token}); it is never logged. */
const loggedPath = (path: string): string => path.replace(/\/auth\/external\/[^/]+/, '/auth/external/{token}');

/** One line per request with its `req_guid`; headers and bodies are never logged (credentials). */
export function accessLog(logger: Logger) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.info(
        { req_guid: req.requestId, method: req.method, path: loggedPath(req.path), status: res.statusCode, ms: Math.round(ms * 10) / 10 },
        'request',
      );
    });
    next();
  };
}
