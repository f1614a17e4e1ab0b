import { randomUUID } from 'node:crypto';
import type { CallContext } from '@masthead/core/grpc';
import type { NextFunction, Request, Response } from 'express';

export const REQUEST_ID_HEADER = 'x-request-id';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace -- express's own augmentation point
  namespace Express {
    interface Request {
      /** `req_guid`: generated here for every request, sent back on every response. */
      requestId: string;
      /**
       * The call this request makes of the services: its request ID, and a deadline that bounds
       * every gRPC call the request causes, at every hop (ADR 0100). Entered with `runInCall`
       * where service calls are made: the scope does not survive reading the body stream.
       */
      call: CallContext;
    }
  }
}

/**
 * A fresh ID per request, and the request's budget for service calls counted from its arrival.
 * A client-sent ID is not trusted: it would let callers forge log lines.
 */
export function requestId(budgetMs: number) {
  return (req: Request, res: Response, next: NextFunction): void => {
    req.requestId = randomUUID();
    req.call = { requestId: req.requestId, deadline: new Date(Date.now() + budgetMs) };
    res.setHeader(REQUEST_ID_HEADER, req.requestId);
    next();
  };
}
