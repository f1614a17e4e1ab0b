import type { Request } from 'express';
import type { RequestContext } from '../auth/context.js';
import type { ServiceClients } from '../clients.js';

export interface HandlerResult {
  status?: number;
  body: unknown;
}

/** A route's action: shared checks have passed; it calls services and shapes the JSON. */
export type RouteHandler = (context: RequestContext, req: Request, clients: ServiceClients) => Promise<HandlerResult>;
