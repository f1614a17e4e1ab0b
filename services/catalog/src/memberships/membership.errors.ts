import { defineError } from '@masthead/core/errors';

// An unknown membership is `subscriptionNotFound` (@masthead/core/errors): the member's routes
// (`/user/subscriptions/{id}`) call a membership a "subscription", and the gateway raises it too.

/** Thrown when a concurrent request holds the claim to create this membership (MembershipService.grant). */
export const membershipPending = defineError({
  status: 409,
  code: 'membership_pending',
  description: 'Another request is creating this membership; retry shortly',
});
