import { defineError } from '@masthead/core/errors';

/** Thrown when `response_type` is none of token, code, code_and_token. */
export const invalidResponseType = defineError({
  status: 409,
  code: 'invalid_response_type',
  description: 'response_type must be token, code or code_and_token',
});

/** Thrown when `redirect_uri` is not on the resource's host (sign-in, refresh, social sign-in). */
export const redirectNotOnHost = defineError({
  status: 409,
  code: 'invalid_redirect_uri',
  description: 'redirect_uri must be on the resource host',
});

/** Thrown when a response type that delivers a code has no `redirect_uri`. */
export const redirectUriRequired = defineError({
  status: 409,
  code: 'invalid_redirect_uri',
  description: 'redirect_uri is required for this response type',
});

/**
 * Thrown by POST /authorization for an unknown email, a wrong password, an inactive account or a
 * blocked relationship alike (no enumeration), and by sign-ins that recover a session from a code.
 */
export const authorizationFail = defineError({ status: 401, code: 'authorization_fail', description: 'Incorrect email or password' });

/** Thrown by a refresh without a `refresh_token`. */
export const refreshTokenRequired = defineError({ status: 409, code: 'invalid_refresh_token', description: 'refresh_token is required' });

/** Thrown when a sign-in is attempted while this account's allowed parallel sign-ins are running (ADR 0091). */
export const signInInProgress = defineError({
  status: 429,
  code: 'too_many_requests',
  description: 'A sign-in for this account is already in progress; retry shortly',
});

/** Thrown when a registration of an email is attempted while another one of it is running (ADR 0091). */
export const registrationInProgress = defineError({
  status: 429,
  code: 'too_many_requests',
  description: 'A registration for this email is already in progress; retry shortly',
});
