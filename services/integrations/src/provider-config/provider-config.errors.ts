import { defineError } from '@masthead/core/errors';

/** Thrown by the operator calls for a provider other than audience, crm or listmgr. */
export const invalidProviderName = defineError({
  status: 400,
  code: 'invalid_provider',
  description: 'provider must be audience, crm or listmgr',
});

/** Thrown by SetProviderSecret for a secret of the wrong shape for its provider. */
export const invalidProviderSecret = defineError(
  { status: 400, code: 'invalid_secret', description: '<why the secret does not fit the provider>' },
  (description: string) => ({ description }),
);

/** Thrown by SetProviderSecret when integrations runs without INTEGRATIONS_SECRETS_KEYS (production). */
export const noIntegrationsKeyRing = defineError({
  status: 503,
  code: 'secrets_key_missing',
  description: 'INTEGRATIONS_SECRETS_KEYS is not configured: provider secrets cannot be stored',
});

/**
 * Thrown by the audience and listmgr operations when the resource has no usable provider
 * configuration: no key (or tokens), a secret that does not open, no list (document 2 H: 500
 * integration_error). The description names what is missing, never a value.
 */
export const integrationError = defineError(
  { status: 500, code: 'integration_error', description: 'The <provider> integration is not configured for this resource' },
  (provider: string) => ({ description: `The ${provider} integration is not configured for this resource` }),
);
