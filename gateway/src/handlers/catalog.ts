import { planNotFound, subscriptionNotFound } from '@masthead/core/errors';
import { toPageQuery } from '@masthead/core/pagination';
import type { ListPlansResponse } from '@masthead/proto/catalog';
import { type z } from 'zod';
import { isAdminRole } from '../auth/roles.js';
import { fromParams, type pageRequest, pathId } from '../http/request.js';
import { sharedJsonBodies } from '../http/shared-body.js';
import type { Handler } from '../routes/define.js';
import { serializePaginator, serializePlan, serializePricing } from '../serializers/catalog.js';

// Catalog serves both reads from its plan cache, the same bytes on every hit: each distinct answer
// is decoded, shaped and turned into JSON once (ADR 0197).
const planListJson = sharedJsonBodies((result: ListPlansResponse, admin: boolean) => ({
  items: result.items.map((plan) => serializePlan(plan, admin)),
  paginator: serializePaginator(result.paginator),
}));
const planJson = sharedJsonBodies(serializePlan);

/** GET /plans: public plan list, paginated (document 1, section F). */
export const listPlans: Handler<'guestWithResource', z.output<typeof pageRequest>> = async (context, page, { plans }) => {
  const admin = isAdminRole(context.caller.role);
  const result = await plans.listPlans({ resourceId: context.resource.id, query: toPageQuery(page) }, { idempotent: true, shared: true });
  return { json: planListJson(result, admin) };
};

export const planRequest = fromParams({ id: pathId(planNotFound) });

/** GET /plans/{id}: plan detail. */
export const getPlan: Handler<'guestWithResource', z.output<typeof planRequest>> = async (context, { id }, { plans }) => {
  const admin = isAdminRole(context.caller.role);
  const plan = await plans.getPlan({ resourceId: context.resource.id, planId: id }, { idempotent: true, shared: true });
  return { json: planJson(plan, admin) };
};

/**
 * GET /integrations/plans: the embedded catalog, grouped by plan, by title ascending, not
 * paginated. The resource header is optional here: without one the answer is `{items: []}`.
 */
export const listEmbeddedPlans: Handler<'guest'> = async (context, _input, { plans }) => {
  if (!context.resource) return { body: { items: [] } };
  const admin = isAdminRole(context.caller.role);
  const result = await plans.listEmbeddedPlans({ resourceId: context.resource.id }, { idempotent: true });
  return { body: { items: result.items.map((plan) => serializePlan(plan, admin)) } };
};

/** GET /subscriptions: public Pricing list, paginated and filterable. */
export const listPricings: Handler<'guestWithResource', z.output<typeof pageRequest>> = async (context, page, { pricings }) => {
  const admin = isAdminRole(context.caller.role);
  const result = await pricings.listPricings({ resourceId: context.resource.id, query: toPageQuery(page) }, { idempotent: true });
  return {
    body: { items: result.items.map((pricing) => serializePricing(pricing, admin)), paginator: serializePaginator(result.paginator) },
  };
};

export const pricingRequest = fromParams({ id: pathId(subscriptionNotFound) });

/** GET /subscriptions/{id}: Pricing detail, visible like the plan detail (ADR 0010). */
export const getPricing: Handler<'guestWithResource', z.output<typeof pricingRequest>> = async (context, { id }, { pricings }) => {
  const admin = isAdminRole(context.caller.role);
  const pricing = await pricings.getPricing({ resourceId: context.resource.id, pricingId: id }, { idempotent: true });
  return { body: serializePricing(pricing, admin) };
};
