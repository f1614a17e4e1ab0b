import { httpError } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import { isAdminRole } from '../auth/roles.js';
import { serializePaginator, serializePlan, serializePricing } from '../serializers/catalog.js';
import type { RouteHandler } from './types.js';

const PATH_ID = /^\d{1,9}$/;

/** GET /plans: public plan list, paginated (document 1, section F). */
export const listPlans: RouteHandler = async (context, req, { catalog }) => {
  const admin = isAdminRole(context.caller.role);
  const page = parsePageRequest(req.query as Record<string, unknown>);
  const result = await catalog.listPlans(
    { resourceId: context.resource!.id, query: toPageQuery(page) },
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
    { resourceId: context.resource!.id, planId: Number(id) },
    { requestId: context.requestId, idempotent: true },
  );
  return { body: serializePlan(plan, admin) };
};

/**
 * GET /integrations/plans: the embedded catalog, grouped by plan, by title ascending, not
 * paginated. The resource header is optional here: without one the answer is `{items: []}`.
 */
export const listEmbeddedPlans: RouteHandler = async (context, _req, { catalog }) => {
  if (!context.resource) return { body: { items: [] } };
  const admin = isAdminRole(context.caller.role);
  const result = await catalog.listEmbeddedPlans({ resourceId: context.resource.id }, { requestId: context.requestId, idempotent: true });
  return { body: { items: result.items.map((plan) => serializePlan(plan, admin)) } };
};

/** GET /subscriptions: public Pricing list, paginated and filterable. */
export const listPricings: RouteHandler = async (context, req, { catalog }) => {
  const admin = isAdminRole(context.caller.role);
  const page = parsePageRequest(req.query as Record<string, unknown>);
  const result = await catalog.listPricings(
    { resourceId: context.resource!.id, query: toPageQuery(page) },
    { requestId: context.requestId, idempotent: true },
  );
  return {
    body: { items: result.items.map((pricing) => serializePricing(pricing, admin)), paginator: serializePaginator(result.paginator) },
  };
};

/** GET /subscriptions/{id}: Pricing detail, visible like the plan detail (ADR 0010). */
export const getPricing: RouteHandler = async (context, req, { catalog }) => {
  const id = String(req.params['id'] ?? '');
  if (!PATH_ID.test(id)) throw httpError(404, 'subscription_not_found', 'Subscription not found');
  const admin = isAdminRole(context.caller.role);
  const pricing = await catalog.getPricing(
    { resourceId: context.resource!.id, pricingId: Number(id) },
    { requestId: context.requestId, idempotent: true },
  );
  return { body: serializePricing(pricing, admin) };
};
