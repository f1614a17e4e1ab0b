import { defineError } from '@masthead/core/errors';

// The public pricing detail (GET /subscriptions/{id}) and the external lookup answer an unknown
// pricing with `subscriptionNotFound` (@masthead/core/errors): their paths call it a subscription.

/** Thrown when a pricing is absent or of another resource (operator and membership calls). */
export const pricingNotFound = defineError({ status: 404, code: 'pricing_not_found', description: 'Pricing not found' });

/** Thrown by the external lookup when the query has no `external_source_id` string, or an empty one. */
export const externalSourceIdRequired = defineError({
  status: 409,
  code: 'external_source_id_required',
  description: 'external_source_id is required',
});

/** Thrown by the external lookup when `external_source_id` was given but nothing is left of it once sanitized. */
export const subscriptionSourceIdRequired = defineError({
  status: 409,
  code: 'subscription_source_id_required',
  description: 'external_source_id is empty once tags, control characters and spaces are removed',
});

/** Thrown by the external lookup when the matched Pricing's plan no longer exists, so the Pricing cannot be shown. */
export const pricingPlanNotFound = defineError({ status: 404, code: 'not_found', description: 'Not found' });

/**
 * Thrown when the external lookup itself fails (storage error, unreadable stored row). The
 * description speaks of creation although this is a lookup: kept because the spec says the
 * literal text mentions creation (document 2, section I).
 */
export const externalSubscriptionFailed = defineError({
  status: 400,
  code: 'external_subscription_failed',
  description: 'Failed to create external subscription',
});
