import { z } from 'zod';
import { isAdminRole } from '../auth/roles.js';
import { queryText } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializePricing } from '../serializers/catalog.js';

/**
 * A query value that is not a single string (absent, repeated, a bracket map) counts as
 * missing: catalog answers 409 external_source_id_required.
 */
export const externalSubscriptionRequest = z
  .object({ query: z.object({ external_source_id: queryText }) })
  .transform(({ query }) => ({ externalSourceId: query.external_source_id }));

/**
 * GET /integrations/external/subscription (document 2, section I): the resource's Pricing mapped
 * to an external product ID.
 */
export const getExternalSubscription: Handler<'serviceAccount', z.output<typeof externalSubscriptionRequest>> = async (
  context,
  { externalSourceId },
  { pricings },
) => {
  const admin = isAdminRole(context.caller.role);
  const pricing = await pricings.findPricingByExternalSource({ resourceId: context.resource.id, externalSourceId }, { idempotent: true });
  return { body: { subscription: serializePricing(pricing, admin) } };
};
