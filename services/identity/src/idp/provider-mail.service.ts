import { invalidEmail } from '@masthead/core/errors';
import type { Resource } from '@masthead/proto/accounts';
import { isAllowedRedirect, normalizeEmail } from '../signin/sign-in.command.js';
import type { AddressLimiter } from '../throttling/address-limiter.js';
import type { IdentityProvider, ProviderMail } from './identity-provider.js';
import { requireProviderSettings } from './provider-settings.js';
import { continueUrlNotOnHost, continueUrlRequired } from './idp.errors.js';

interface ProviderMailDeps {
  provider: IdentityProvider;
  limiter: AddressLimiter;
  limitPerHour: number;
}

/**
 * POST /idp/password-reset and POST /idp/email-auth-link (ADR 0051): the provider mails the
 * link. The answer is the same for known and unknown emails; mails are limited per address.
 */
export class ProviderMailService {
  constructor(private readonly deps: ProviderMailDeps) {}

  async send(resource: Resource, kind: ProviderMail, rawEmail: string, rawContinueUrl: string, ip: string): Promise<void> {
    const email = normalizeEmail(rawEmail);
    if (!email) throw invalidEmail();
    const continueUrl = rawContinueUrl.trim() || null;
    // A sign-in link must lead back to the publication; a reset link may carry no destination.
    if (kind === 'email_sign_in' && !continueUrl) throw continueUrlRequired();
    if (continueUrl && !isAllowedRedirect(continueUrl, resource.host)) {
      throw continueUrlNotOnHost();
    }
    const settings = requireProviderSettings(resource);
    await this.deps.limiter.consume('idp_mail', ip, this.deps.limitPerHour);
    await this.deps.provider.sendMail(settings, kind, email, continueUrl);
  }
}
