import { httpError } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { isAdminRole } from '../auth/roles.js';
import { serializePaginator, serializePlan } from '../serializers/catalog.js';
import type { RouteHandler } from './types.js';

const PATH_ID = /^\d{1,9}$/;

/** GET /plans: public plan list, paginated (document 1, section F). */
export const listPlans: RouteHandler = async (context, req, { catalog }) => {
  const admin = isAdminRole(context.caller.role);
  const page = parsePageRequest(req.query as Record<string, unknown>);
  const result = await catalog.listPlans(
    { resourceId: context.resource!.id, query: toPageQuery(page), admin },
    { requestId: context.requestId, idempotent: true },
  );
  return { body: { items: result.items.map((plan) => serializePlan(plan, admin)), paginator: serializePaginator(result.paginator) } };
};

/** GET /plans/{id}: plan detail. */
export const getPlan: RouteHandler = async (context, req, { catalog }) => {
  const id = String(req.params['id'] ?? '');
  if (!PATH_ID.test(id)) throw httpError(404, 'plan_not_found', 'Plan not found');
  const admin = isAdminRole(context.caller.role);
  const plan = await catalog.getPlan(
    { resourceId: context.resource!.id, planId: Number(id), admin },
    { requestId: context.requestId, idempotent: true },
  );
  return { body: serializePlan(plan, admin) };
};
