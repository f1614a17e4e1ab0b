import { defineError } from '@masthead/core/errors';

/** Thrown by SetEventName (operator) for a name outside [a-z0-9_.:-]{1,64}. */
export const invalidEventNameFormat = defineError({
  status: 400,
  code: 'invalid_name',
  description: 'name must be 1 to 64 lowercase letters, digits, _ . : or -',
});
