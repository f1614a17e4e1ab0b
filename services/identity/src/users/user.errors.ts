import { defineError } from '@masthead/core/errors';

// An unknown user is `userNotExist` (@masthead/core/errors): the gateway raises it too.

/** Thrown when another member already has the email (registration, availability, email change and confirmation). */
export const userExists = defineError({ status: 409, code: 'user_exists', description: 'A member with this email already exists' });

/** Thrown by CreateServiceAccountUser (operator) without a positive `resource_id`. */
export const serviceAccountUserResourceRequired = defineError({
  status: 400,
  code: 'invalid_resource_id',
  description: 'resource_id is required',
});
