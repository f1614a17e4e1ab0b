import { defineError, invalidRequestField } from '@masthead/core/errors';

/** GET /sponsor/sponsored-subscriptions: the list could not be read (document 2 E). */
export const sponsorshipsFailed = defineError({
  status: 409,
  code: 'sponsor_subscriptions_error',
  description: 'Sponsorships could not be read',
});
/** The sponsorship is absent, another sponsor's or of another resource (document 2 E). */
export const sponsorshipNotFound = defineError({ status: 404, code: 'sponsor_subscription_error', description: 'Sponsorship not found' });
/** A sponsorship read failed unexpectedly (document 2 E: query failure). */
export const sponsorshipFailed = defineError({
  status: 409,
  code: 'sponsor_subscription_error',
  description: 'The sponsorship could not be read',
});
/** PUT /sponsor/sponsored-subscriptions/{id}: the parent is not the caller's in the resource. */
export const sponsorshipUpdateNotFound = defineError({
  status: 404,
  code: 'sponsor_subscription_update_error',
  description: 'Sponsorship not found',
});
/** PUT: a changed membership flag, but no membership is associated with the sponsorship yet. */
export const sponsorshipWithoutMembership = defineError({
  status: 409,
  code: 'sponsor_subscription_update_error',
  description: 'The sponsorship has no associated membership',
});
/** PUT: a step's save or event failed (earlier steps stay saved). */
export const sponsorshipUpdateFailed = defineError({
  status: 409,
  code: 'sponsor_subscription_update_error',
  description: 'The sponsorship could not be updated',
});
/** The slot is absent, another sponsor's (or, for recipients, not theirs) or of another resource. */
export const slotNotFound = defineError({ status: 404, code: 'sponsor_slot_not_found', description: 'Slot not found' });
/** PUT .../invitation: every seat of the slot is taken. */
export const slotFull = defineError({ status: 409, code: 'sponsor_slot_full', description: 'Every seat of the slot is taken' });
/** PUT .../clear: only a multi-seat slot can be cleared. */
export const slotNotMultiSeat = defineError({
  status: 409,
  code: 'sponsor_slot_not_multi_seat',
  description: 'Only a multi-seat slot can be cleared',
});
/** PUT .../slots/activate: `activation_code` is missing. */
export const invalidActivationCode = defineError({
  status: 409,
  code: 'invalid_activation_code',
  description: 'activation_code is required',
});
/** PUT .../slots/activate: the slot is bound to another recipient's email. */
export const slotForAnotherRecipient = defineError({
  status: 409,
  code: 'sponsor_slot_activation_error',
  description: 'The slot is for another recipient',
});
/** PUT .../slots/activate: every seat of the slot is taken. */
export const slotActivationFull = defineError({
  status: 409,
  code: 'sponsor_slot_activation_error',
  description: 'Every seat of the slot is taken',
});
/** PUT .../slots/activate: the membership could not be granted (the seat is freed again). */
export const slotGrantFailed = defineError({
  status: 409,
  code: 'sponsor_slot_activation_error',
  description: 'The membership could not be granted',
});
/** A field of a sponsorship or slot write is invalid: 409 with error_fields (document 2 Errors). */
export const invalidSponsorshipField = (field: string, description: string) =>
  invalidRequestField(field, description, { [field]: description });
/** CreateSponsorship: the purchase line was refunded or its dispute lost (docs/adr/0234). */
export const sponsorshipRevoked = defineError({
  status: 409,
  code: 'sponsorship_revoked',
  description: 'The purchase was revoked',
});
