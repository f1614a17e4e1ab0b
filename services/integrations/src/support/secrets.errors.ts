import { defineError } from '@masthead/core/errors';

/** Thrown by an operator write of a secret when integrations runs without INTEGRATIONS_SECRETS_KEYS (production). */
export const integrationsKeyRingMissing = defineError({
  status: 503,
  code: 'secrets_key_missing',
  description: 'INTEGRATIONS_SECRETS_KEYS is not configured: secrets cannot be stored',
});
