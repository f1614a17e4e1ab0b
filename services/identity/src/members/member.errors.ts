import { defineError } from '@masthead/core/errors';

// Operator calls answer bad input with 400, not the member routes' 409.

/** Thrown by CreateMember (operator) when the email is missing or invalid. */
export const memberEmailInvalid = defineError({ status: 400, code: 'invalid_email', description: 'A valid email is required' });

/** Thrown by CreateMember (operator) when the password is shorter than the policy's minimum. */
export const memberPasswordTooShort = defineError(
  { status: 400, code: 'invalid_password', description: 'A password has at least <min> characters' },
  (min: number) => ({ description: `A password has at least ${min} characters` }),
);

/** Thrown by CreateMember (operator) when the role is neither root nor a resource role. */
export const unknownRole = defineError({ status: 400, code: 'invalid_role', description: 'Unknown role <role>' }, (role: string) => ({
  description: `Unknown role ${role}`,
}));
