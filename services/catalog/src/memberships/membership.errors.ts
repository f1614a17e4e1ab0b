import { httpError } from '@masthead/core/errors';

/**
 * Thrown by the member's membership routes (`/user/subscriptions/{id}`, where the API calls a
 * membership a "subscription") when the ID names no active membership of this user in this
 * resource: absent, detached, another user's or another resource's alike.
 */
export const membershipNotFound = () => httpError(404, 'subscription_not_found', 'Subscription not found');
