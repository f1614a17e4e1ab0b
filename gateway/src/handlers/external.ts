import { isAdminRole } from '../auth/roles.js';
import { serializePricing } from '../serializers/catalog.js';
import type { RouteHandler } from './types.js';

/**
 * GET /integrations/external/subscription (document 2, section I): the resource's Pricing mapped
 * to an external product ID. A query value that is not a single string (absent, repeated, a
 * bracket map) counts as missing: 409 external_source_id_required.
 */
export const getExternalSubscription: RouteHandler = async (context, req, { catalog }) => {
  const value = req.query['external_source_id'];
  const admin = isAdminRole(context.caller.role);
  const pricing = await catalog.findPricingByExternalSource(
    { resourceId: context.resource!.id, externalSourceId: typeof value === 'string' ? value : undefined },
    { requestId: context.requestId, idempotent: true },
  );
  return { body: { subscription: serializePricing(pricing, admin) } };
};
