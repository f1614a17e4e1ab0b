import { PROVIDER_NAME } from './provider-config.js';
import { invalidIdToken, invalidProvider } from './social.errors.js';

/** ID tokens are a few kilobytes at most; anything far larger is not one (and not worth parsing). */
const MAX_ID_TOKEN_LENGTH = 16_384;

/** A provider name as configured (trimmed, lowercased); 409 invalid_provider when missing or malformed. */
export function parseProviderName(raw: string): string {
  const provider = raw.trim().toLowerCase();
  if (!provider) throw invalidProvider('provider is required');
  if (!PROVIDER_NAME.test(provider)) throw invalidProvider('provider is not a configured provider name');
  return provider;
}

/** A provider the deployment configured; unknown names are 409 invalid_provider (the list is not secret). */
export function parseConfiguredProvider(raw: string, isConfigured: (name: string) => boolean): string {
  const provider = parseProviderName(raw);
  if (!isConfigured(provider)) throw invalidProvider('provider is not a configured provider name');
  return provider;
}

/** The provider's ID token (a JWT), trimmed; 409 invalid_id_token when missing or oversized. */
export function parseIdToken(raw: string): string {
  const token = raw.trim();
  if (!token || token.length > MAX_ID_TOKEN_LENGTH) throw invalidIdToken();
  return token;
}
