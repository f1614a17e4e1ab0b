import { httpError } from '@masthead/core/errors';

/** Thrown when a pricing is absent or of another resource. */
export const pricingNotFound = () => httpError(404, 'pricing_not_found', 'Pricing not found');
