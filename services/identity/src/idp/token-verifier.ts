import type { Resource } from '@masthead/proto/accounts';
import type { IdentityProvider, VerifiedIdentity } from './identity-provider.js';
import { requireProviderSettings, type ProviderSettings } from './provider-settings.js';
import { emptyUserId, idpTokenRejected, idpTokenRequired } from './idp.errors.js';

/** Real ID tokens are ~1 KB; the cap keeps a pasted novel away from the verifier. */
const MAX_TOKEN_LENGTH = 8192;

export interface VerifiedRequest {
  settings: ProviderSettings;
  identity: VerifiedIdentity;
}

/**
 * The `idp-token` of a request, verified for the resource's provider project. 409
 * service_not_active, then 409 verify_failed (absent, malformed, expired, another project's, a
 * custom or a session token), then 409 empty_user_id (no subject claim), as document 1 lists them.
 */
export async function verifyRequestToken(provider: IdentityProvider, resource: Resource, idToken: string): Promise<VerifiedRequest> {
  const settings = requireProviderSettings(resource);
  const token = idToken.trim();
  if (!token) throw idpTokenRequired();
  if (token.length > MAX_TOKEN_LENGTH) throw idpTokenRejected();
  const identity = await provider.verifyIdToken(settings, token);
  if (!identity.uid) throw emptyUserId();
  return { settings, identity };
}
