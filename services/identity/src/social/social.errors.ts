import { defineError } from '@masthead/core/errors';

/** Thrown by POST /social-authorization when the identity is linked to no usable member of the resource. */
export const socialSignInFail = defineError({ status: 401, code: 'authorization_fail', description: 'Social sign-in failed' });

/** Thrown when unlinking an identity that another account owns. */
export const socialAlreadyLinked = defineError({
  status: 409,
  code: 'social_already_linked',
  description: 'This identity is linked to another account',
});

/** Thrown when the provider's ID token fails verification (signature, audience, expiry). */
export const idTokenNotVerified = defineError({ status: 409, code: 'verify_failed', description: 'The ID token could not be verified' });

/** Thrown when the provider's keys cannot be fetched. */
export const socialProviderUnavailable = defineError({
  status: 503,
  code: 'social_provider_unavailable',
  description: 'The provider could not be reached; retry later',
});

/** Thrown when the provider name is missing, malformed or not configured; the description says which. */
export const invalidProvider = defineError(
  { status: 409, code: 'invalid_provider', description: '<why the provider name was refused>' },
  (why: string) => ({ description: why }),
);

/** Thrown when `id_token` is missing or longer than any provider ID token. */
export const invalidIdToken = defineError({ status: 409, code: 'invalid_id_token', description: 'id_token must be a provider ID token' });
