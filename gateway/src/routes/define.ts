import type { Request } from 'express';
import type { RequestContext } from '../auth/context.js';
import type { ServiceClients, ServiceName } from '../clients.js';
import { decodeRequest, rawRequestOf, type RequestSchema } from '../http/request.js';
import { narrowContext, type AccessClass, type ContextOf } from './access.js';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE';

export interface HandlerResult {
  status?: number;
  body?: unknown;
  /**
   * A body already serialized as JSON, sent as `res.json` would send it: for answers whose text
   * is made once and reused (the country list, shared catalog answers).
   */
  json?: string;
  /**
   * A file to download instead of JSON (invoices, receipts): sent with the force-download content
   * type and an attachment disposition naming `filename` (document 2 G).
   */
  download?: { filename: string; content: Uint8Array };
}

/**
 * A route's action for access class `A`: the shared checks passed and proved what `ContextOf<A>`
 * states; `input` is the route's decoded request. `req` is left for what no schema decodes (the
 * socket address, an upload).
 */
export type Handler<in A extends AccessClass, I = undefined> = (
  context: ContextOf<A>,
  input: I,
  clients: ServiceClients,
  req: Request,
) => Promise<HandlerResult>;

/** One row of the route table, its types erased once `route()` has checked them. */
export interface RouteDefinition {
  method: HttpMethod;
  /** Path under /api/v1 as the spec writes it, `{param}` for path parameters. */
  path: string;
  /** The service that owns the operation (../shared/spec/OPERATIONS.md). */
  service: ServiceName;
  access: AccessClass;
  /** The route's request schema, kept for the OpenAPI document (docs/adr/0184). */
  request?: RequestSchema<unknown>;
  handler: (context: RequestContext, req: Request, clients: ServiceClients) => Promise<HandlerResult>;
  /**
   * The operation takes a multipart/form-data upload: such a body is read only after the shared
   * checks, within PHOTO_MAX_BYTES, into `req.uploadedFile` (ADR 0063, 0080). On every other
   * route a multipart body is a body the route does not decode, held to BODY_LIMIT.
   */
  multipart?: true;
}

interface RowOf<A extends AccessClass> {
  method: HttpMethod;
  path: string;
  service: ServiceName;
  access: A;
  /** See RouteDefinition.multipart. */
  multipart?: true;
}

/**
 * A built operation. The access class decides the handler's context type, so a handler written
 * for another class, or one that expects what its class does not prove, does not compile; the
 * request schema decides its input type.
 */
export function route<A extends AccessClass>(row: RowOf<A> & { request?: undefined; handler: Handler<NoInfer<A>> }): RouteDefinition;
export function route<A extends AccessClass, I>(
  row: RowOf<A> & { request: RequestSchema<I>; handler: Handler<NoInfer<A>, NoInfer<I>> },
): RouteDefinition;
export function route<A extends AccessClass, I>(
  row: RowOf<A> & { request?: RequestSchema<I>; handler: Handler<A, I | undefined> },
): RouteDefinition {
  const { request, handler: action, ...definition } = row;
  return {
    ...definition,
    ...(request ? { request: request as RequestSchema<unknown> } : {}),
    handler: (context, req, clients) =>
      action(narrowContext(row.access, context), request ? decodeRequest(request, rawRequestOf(req)) : undefined, clients, req),
  };
}
