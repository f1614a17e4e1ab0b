import type { Logger } from '@masthead/core/logging';
import type { Resource } from '@masthead/proto/accounts';
import type { IdentityProvider } from './identity-provider.js';
import type { IdpLinkRepository } from './idp-link.repository.js';
import { memberIdentity } from './member-identity.js';
import { providerSettingsOf } from './provider-settings.js';

export interface RequestedProviderTokens {
  idToken: boolean;
  customToken: boolean;
}

export interface ProviderTokens {
  idToken?: string;
  customToken?: string;
}

/** Provider tokens for a signed-in member: GET /idp/custom-token and the refresh flags. */
export class MemberProviderTokens {
  constructor(
    private readonly provider: IdentityProvider,
    private readonly links: IdpLinkRepository,
    private readonly logger: Logger,
  ) {}

  /** GET /idp/custom-token: 409 service_not_active, 409 idp_not_linked, or 400 on provider failure. */
  async customToken(resource: Resource, userId: number): Promise<string> {
    const { settings, uid } = await memberIdentity(this.links, resource, userId);
    return this.provider.createCustomToken(settings, uid);
  }

  /**
   * POST /authorization/refresh with `with_idp_token` / `with_idp_custom_token`: the tokens the
   * provider gave; a token is omitted when the provider is off, the member is not linked or the
   * provider fails (document 1, B: "may be omitted on provider failure").
   */
  async forRefresh(resource: Resource | null, userId: number, wanted: RequestedProviderTokens): Promise<ProviderTokens> {
    if (!resource || !providerSettingsOf(resource) || (!wanted.idToken && !wanted.customToken)) return {};
    try {
      const { settings, uid } = await memberIdentity(this.links, resource, userId);
      const [idToken, customToken] = await Promise.all([
        wanted.idToken ? this.provider.mintIdToken(settings, uid) : undefined,
        wanted.customToken ? this.provider.createCustomToken(settings, uid) : undefined,
      ]);
      return { idToken, customToken };
    } catch (error) {
      this.logger.debug({ code: (error as { code?: unknown })?.code }, 'provider tokens omitted from refresh');
      return {};
    }
  }
}
