import { defineError } from '@masthead/core/errors';

/**
 * Thrown by POST /user/entitlement-token, the revocation list and a key rotation when no key can
 * sign: IDENTITY_SECRETS_KEYS is unset (production) or does not open the stored keys.
 */
export const entitlementSigningUnavailable = defineError({
  status: 503,
  code: 'entitlement_signing_unavailable',
  description: 'Entitlement tokens cannot be signed: no signing key is usable',
});
