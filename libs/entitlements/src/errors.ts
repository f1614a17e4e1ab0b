import { errors } from 'jose';

/**
 * Why a token was refused. Every reason but `unavailable` is the token's fault: show the reader the
 * paywall, or ask the client for a new token (`expired`, `revoked`). `unavailable` is an outage
 * (the key set or the revocation list could not be had): the token was not judged.
 */
export type RefusalReason =
  | 'malformed'
  | 'wrong_type'
  | 'algorithm_not_allowed'
  | 'unknown_key'
  | 'bad_signature'
  | 'wrong_issuer'
  | 'wrong_resource'
  | 'expired'
  | 'not_yet_valid'
  | 'revoked'
  | 'unavailable';

/** Thrown by `verify` for a token it does not accept; `reason` says why (safe to log). */
export class EntitlementTokenRefused extends Error {
  constructor(
    readonly reason: RefusalReason,
    options?: { cause?: unknown },
  ) {
    super(`entitlement token refused: ${reason}`, options);
    this.name = 'EntitlementTokenRefused';
  }
}

/** The claims whose failed check jose reports as JWTClaimValidationFailed, and what each means here. */
const CLAIM_REASONS: Readonly<Record<string, RefusalReason>> = {
  aud: 'wrong_resource',
  iss: 'wrong_issuer',
  nbf: 'not_yet_valid',
  typ: 'wrong_type',
  iat: 'malformed',
  exp: 'malformed',
  sub: 'malformed',
};

/** jose's error for a token, as a refusal. */
export function refusalOf(error: unknown): EntitlementTokenRefused {
  if (error instanceof EntitlementTokenRefused) return error;
  const reason = reasonOf(error);
  return new EntitlementTokenRefused(reason, { cause: error });
}

function reasonOf(error: unknown): RefusalReason {
  if (error instanceof errors.JWTExpired) return 'expired';
  if (error instanceof errors.JWTClaimValidationFailed) return CLAIM_REASONS[error.claim] ?? 'malformed';
  if (error instanceof errors.JOSEAlgNotAllowed) return 'algorithm_not_allowed';
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'bad_signature';
  if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys) return 'unknown_key';
  if (error instanceof errors.JWKSTimeout || error instanceof errors.JWKSInvalid) return 'unavailable';
  if (error instanceof errors.JOSEError) return 'malformed';
  // A fetch that failed (network, DNS, a non-200 answer): the key set could not be had.
  return 'unavailable';
}
