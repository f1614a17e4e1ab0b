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

/**
 * Thrown by the integration-admin connect operations (and SetClientId) when the resource has no
 * usable base secret key for its mode (document 1 D: a precondition of admin operations).
 */
export const cardProviderKeyMissing = defineError(
  { status: 409, code: 'cardprovider_key_missing', description: 'No card-provider secret key for this resource in <mode> mode' },
  (mode: string) => ({ description: `No card-provider secret key for this resource in ${mode} mode` }),
);

/** Thrown by the connect operations when no connect client ID (`ca_…`) is set for the mode. */
export const cardProviderClientIdMissing = defineError(
  {
    status: 409,
    code: 'cardprovider_client_id_missing',
    description: 'No card-provider connect client ID for this resource in <mode> mode',
  },
  (mode: string) => ({ description: `No card-provider connect client ID for this resource in ${mode} mode` }),
);

/** Thrown by SetClientId for anything but a connect client ID (`ca_…`). */
export const invalidClientId = defineError({
  status: 400,
  code: 'invalid_client_id',
  description: 'client_id must be a card-provider connect client ID (ca_…)',
});

/**
 * Thrown by the connect exchange and clear when the provider fails or refuses for another reason
 * than the code (a refused platform key, a missed deadline): 409 like the setup-intents sibling.
 * The description carries the provider's message, never a key or token.
 */
export const cardProviderConnectError = defineError(
  { status: 409, code: 'cardprovider_connect_error', description: 'Card provider connection failed: <reason>' },
  (detail: string) => ({ description: `Card provider connection failed: ${detail}` }),
);
