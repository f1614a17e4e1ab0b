import { randomUUID } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'x-request-id';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- express's own augmentation point
  namespace Express {
    interface Request {
      /** `req_guid`: generated here for every request, sent back on every response. */
      requestId: string;
    }
  }
}

/** A fresh ID per request. A client-sent ID is not trusted: it would let callers forge log lines. */
export function requestId(req: Request, res: Response, next: NextFunction): void {
  req.requestId = randomUUID();
  res.setHeader(REQUEST_ID_HEADER, req.requestId);
  next();
}
