import { invalidEmail } from '@masthead/core/errors';
import type { Resource } from '@masthead/proto/accounts';
import { normalizeEmail } from '../signin/sign-in.command.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { IdentityProvider } from './identity-provider.js';
import { requireProviderSettings } from './provider-settings.js';
import { passwordRequired, passwordTooLong } from '../passwords/password.errors.js';

interface ProviderSignInDeps {
  provider: IdentityProvider;
  limiter: AddressLimiter;
  limitPerHour: number;
}

/** No local length rule (document 1, Limits); this only keeps a megabyte off the provider. */
const MAX_PASSWORD_LENGTH = 4096;

/**
 * POST /idp/sign-in (document 1, A): email and password at the provider, for a provider ID token.
 * No session is issued. Limited per client address on top of the provider's own throttling.
 */
export class ProviderSignInService {
  constructor(private readonly deps: ProviderSignInDeps) {}

  async signIn(resource: Resource, rawEmail: string, rawPassword: string, ip: string): Promise<{ uid: string; idToken: string }> {
    const email = normalizeEmail(rawEmail);
    if (!email) throw invalidEmail();
    const password = rawPassword.trim();
    if (!password) throw passwordRequired();
    if (password.length > MAX_PASSWORD_LENGTH) throw passwordTooLong(MAX_PASSWORD_LENGTH);
    const settings = requireProviderSettings(resource);
    await this.deps.limiter.consume('idp_sign_in', ip, this.deps.limitPerHour);
    return this.deps.provider.signInWithPassword(settings, email, password);
  }
}
