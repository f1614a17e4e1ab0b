import { defineError } from '@masthead/core/errors';

/** Thrown by CreateResource (operator) when the public key is not 3-128 letters, digits, `_` or `-`. */
export const invalidPublicKey = defineError({
  status: 400,
  code: 'invalid_public_key',
  description: 'public key: 3-128 letters, digits, _ or -',
});
