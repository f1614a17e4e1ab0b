import { httpError } from '@masthead/core/errors';

/** Thrown when a pricing is absent or of another resource. */
export const pricingNotFound = () => httpError(404, 'pricing_not_found', 'Pricing not found');

/**
 * Thrown by the public pricing detail (GET /subscriptions/{id}), whose path calls a pricing a
 * "subscription": the pricing is absent, inactive, of an inactive plan or of another resource.
 */
export const subscriptionNotFound = () => httpError(404, 'subscription_not_found', 'Subscription not found');
