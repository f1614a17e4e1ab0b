import { defineError } from '@masthead/core/errors';

/** Document 2 F: the resource setting `ti_events_system` is off. */
export const tiEventsNotAvailable = defineError({
  status: 409,
  code: 'ti_events_not_available',
  description: 'Events and tickets are not available for this resource',
});

/** Document 2 E: a sponsorship or slot `{id}` that sanitizes to nothing or zero. */
export const invalidSponsorshipId = defineError({ status: 409, code: 'invalid_id', description: 'id must be a nonzero integer' });
