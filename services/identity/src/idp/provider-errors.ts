import { isServiceError, type ServiceError } from '@masthead/core/errors';
import { emptyUserId, idpTokenRejected, providerFailure } from './idp.errors.js';

/**
 * Safe texts for the provider's refusals. Document 1 puts "dynamic exception text" in `error`
 * for these; we never pass the provider's own message on (it can name internals), only one of
 * these. An unknown account and a wrong password read the same (no enumeration).
 */
const REST_REFUSALS: Record<string, string> = {
  EMAIL_NOT_FOUND: 'Invalid email or password',
  INVALID_PASSWORD: 'Invalid email or password',
  INVALID_LOGIN_CREDENTIALS: 'Invalid email or password',
  INVALID_EMAIL: 'Invalid email or password',
  USER_DISABLED: 'The account is disabled at the identity provider',
  TOO_MANY_ATTEMPTS_TRY_LATER: 'Too many attempts; try again later',
  INVALID_CONTINUE_URI: 'The continue URL is not valid',
  UNAUTHORIZED_DOMAIN: 'The continue URL is not allowed by the identity provider',
  INVALID_CUSTOM_TOKEN: 'The identity provider refused the token',
  CREDENTIAL_MISMATCH: 'The identity provider refused the token',
};

export const PROVIDER_FAILED = 'The identity provider request failed';

/** The 400 of a provider refusal, keyed by its REST error code (e.g. `INVALID_PASSWORD : …`). */
export function providerRefusal(restCode: string): ServiceError {
  const code = restCode.split(/[\s:]/, 1)[0] ?? '';
  const text = REST_REFUSALS[code] ?? PROVIDER_FAILED;
  return providerFailure(text);
}

/** firebase-admin refuses a token without a subject before we see it; its message names the claim. */
const MISSING_SUBJECT = /"sub" \(subject\) claim\./;

/** firebase-admin's ID-token errors, as a safe 409 verify_failed (409 empty_user_id for a missing subject). */
export function tokenRejected(error: unknown): ServiceError {
  if (isServiceError(error)) return error;
  const code = (error as { code?: unknown })?.code;
  const message = (error as { message?: unknown })?.message;
  if (typeof message === 'string' && /has (no|an empty) "sub"/.test(message) && MISSING_SUBJECT.test(message)) {
    return emptyUserId();
  }
  const text =
    code === 'auth/id-token-expired'
      ? 'The IdP token has expired'
      : code === 'auth/id-token-revoked'
        ? 'The IdP token has been revoked'
        : code === 'auth/user-disabled'
          ? 'The account is disabled at the identity provider'
          : 'The IdP token is invalid';
  return idpTokenRejected(text);
}

const VERIFICATION_CODES = new Set(['verify_failed', 'empty_user_id', 'service_not_active']);

/** A verification error as an operation whose errors are 400 with a text (POST /idp/verify-token) shows it. */
export function asDynamicError(error: unknown): unknown {
  if (!isServiceError(error) || !VERIFICATION_CODES.has(error.code)) return error;
  return providerFailure(error.description);
}
