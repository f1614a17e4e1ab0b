import { defineError } from '@masthead/core/errors';

/** Thrown by SetSecretKey for a mode other than `test` or `live`. */
export const invalidMode = defineError({ status: 400, code: 'invalid_mode', description: 'mode must be test or live' });

/** Thrown by SetSecretKey for an empty key or one that is not a secret or restricted key. */
export const invalidSecretKey = defineError({
  status: 400,
  code: 'invalid_secret_key',
  description: 'secret_key must be a provider secret key (sk_… or rk_…)',
});

/** Thrown by SetSecretKey when billing runs without BILLING_SECRETS_KEYS (production). */
export const noKeyRing = defineError({
  status: 503,
  code: 'secrets_key_missing',
  description: 'BILLING_SECRETS_KEYS is not configured: secret keys cannot be stored',
});
