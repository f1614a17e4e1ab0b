import { defineError } from '@masthead/core/errors';

/** Thrown by POST /user/event when `name` is missing, not a public event name, or the list could not be read (document 2 L). */
export const invalidEventName = defineError({ status: 409, code: 'invalid_event_name', description: 'Invalid event name' });

/** Thrown by POST /user/event when `value` is missing or empty once tags are stripped, or longer than 2,048 characters. */
export const invalidEventValue = defineError({ status: 409, code: 'invalid_event_value', description: 'Invalid event value' });

/** Thrown by SetEventName (operator) for a name outside [a-z0-9_.:-]{1,64}. */
export const invalidEventNameFormat = defineError({
  status: 400,
  code: 'invalid_name',
  description: 'name must be 1 to 64 lowercase letters, digits, _ . : or -',
});
