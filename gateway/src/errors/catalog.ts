import { defineError } from '@masthead/core/errors';

// plan_not_found, subscription_not_found and team_not_found, which the gateway raises where a
// path parameter cannot name a record, are shared with catalog in @masthead/core/errors.

/** PUT /user/subscriptions/{id}: `autorenew` is not a JSON boolean. */
export const invalidAutorenew = defineError({ status: 409, code: 'invalid_autorenew', description: 'autorenew must be a JSON boolean' });
