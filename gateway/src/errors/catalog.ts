import { httpError } from '@masthead/core/errors';

/**
 * Catalog errors the gateway raises itself, where a path parameter cannot name a record (the
 * catalog service raises the same codes for records it does not find).
 */

/** `{id}` of /plans/{id} is no plan ID. */
export const planNotFound = () => httpError(404, 'plan_not_found', 'Plan not found');

/** `{id}` of /subscriptions/{id} or /user/subscriptions/{id} is no Pricing or membership ID. */
export const subscriptionNotFound = () => httpError(404, 'subscription_not_found', 'Subscription not found');

/** `{team_id}` of /user/teams/{team_id}/plans is no team ID. */
export const teamNotFound = () => httpError(404, 'team_not_found', 'Team not found');

/** PUT /user/subscriptions/{id}: `autorenew` is not a JSON boolean. */
export const invalidAutorenew = () => httpError(409, 'invalid_autorenew', 'autorenew must be a JSON boolean');
