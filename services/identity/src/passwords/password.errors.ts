import { defineError } from '@masthead/core/errors';

/** Thrown when a password field is missing or empty (sign-in, registration, resource password, provider sign-in). */
export const passwordRequired = defineError({ status: 409, code: 'invalid_password', description: 'A password is required' });

/** Thrown by the password policy (ADR 0004) when a new password is shorter than its minimum. */
export const passwordTooShort = defineError(
  { status: 409, code: 'invalid_password', description: 'A password has at least <min> characters' },
  (min: number) => ({ description: `A password has at least ${min} characters` }),
);

/** Thrown when a password is longer than the operation hashes or forwards (the policy's bound, the provider's). */
export const passwordTooLong = defineError(
  { status: 409, code: 'invalid_password', description: 'A password has at most <max> characters' },
  (max: number) => ({ description: `A password has at most ${max} characters` }),
);

/** Thrown by the password policy when a new password is among the common passwords of breach corpora. */
export const passwordTooCommon = defineError({
  status: 409,
  code: 'invalid_password',
  description: 'This password is too common; choose another',
});

/** Thrown when the hashing queue is full: more sign-ins are in progress than the process admits. */
export const hashQueueFull = defineError({
  status: 429,
  code: 'too_many_requests',
  description: 'Too many sign-in attempts are in progress; retry shortly',
});
