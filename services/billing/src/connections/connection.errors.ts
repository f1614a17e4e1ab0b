import { httpError } from '@masthead/core/errors';

/** Thrown by SetSecretKey for a mode other than `test` or `live`. */
export const invalidMode = () => httpError(400, 'invalid_mode', 'mode must be test or live');

/** Thrown by SetSecretKey for an empty key or one that is not a secret or restricted key. */
export const invalidSecretKey = () => httpError(400, 'invalid_secret_key', 'secret_key must be a provider secret key (sk_… or rk_…)');

/** Thrown by SetSecretKey when billing runs without BILLING_SECRETS_KEYS (production). */
export const noKeyRing = () =>
  httpError(503, 'secrets_key_missing', 'BILLING_SECRETS_KEYS is not configured: secret keys cannot be stored');
