import type { Request, Response } from 'express';
import { loadErrorCatalogue, openApiDocument } from '../openapi/document.js';
import type { RouteDefinition } from '../routes/define.js';

/** `GET /api/v1/openapi.json`: the document of `routes`, made on first request and kept (docs/adr/0184). */
export function openApiEndpoint(routes: readonly RouteDefinition[]) {
  let body: string | undefined;
  return (_req: Request, res: Response): void => {
    body ??= JSON.stringify(openApiDocument(routes, loadErrorCatalogue()));
    res.type('application/json').send(body);
  };
}
