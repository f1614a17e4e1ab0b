import type { Credentials, RefreshRequest } from '@masthead/proto/identity';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { MemberProviderTokens } from '../idp/member-provider-tokens.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { CredentialExchange } from '../sessions/credential-exchange.service.js';
import type { SessionService } from '../sessions/session.service.js';
import { isAllowedRedirect, parseResponseType } from './sign-in.command.js';
import { redirectNotOnHost, refreshTokenRequired } from './sign-in.errors.js';

interface RefreshDeps {
  exchange: CredentialExchange;
  sessions: SessionService;
  resources: ResourceDirectory;
  relationships: RelationshipRepository;
  /** Provider tokens for `with_idp_token` / `with_idp_custom_token`. */
  providerTokens: MemberProviderTokens;
  /** The entitlement token beside the renewed session token (docs/adr/0246). */
  entitlements: EntitlementTokens;
}

/** Caps the lookup work of a presented secret; real ones are 43 characters. */
const MAX_SECRET_LENGTH = 512;

/**
 * POST /authorization/refresh (document 1, section B): new credentials for the session of a
 * refresh record, in the requested response type (default `code_and_token`).
 */
export class RefreshService {
  constructor(private readonly deps: RefreshDeps) {}

  async refresh(request: RefreshRequest): Promise<Credentials> {
    const refreshToken = request.refreshToken.trim();
    if (!refreshToken || refreshToken.length > MAX_SECRET_LENGTH) {
      throw refreshTokenRequired();
    }
    const responseType = parseResponseType(request.responseType, 'code_and_token');
    const redirectUri = request.redirectUri.trim();
    if (redirectUri) {
      const resource = request.resourceId ? await this.deps.resources.get(request.resourceId) : null;
      if (!isAllowedRedirect(redirectUri, resource?.host)) throw redirectNotOnHost();
    }
    const issued = await this.deps.exchange.refresh({ resourceId: request.resourceId, refreshToken, reusable: request.reusableRefresh });
    const includeToken = responseType !== 'code';
    const credentials: Credentials = {
      token: includeToken ? issued.token : '',
      refreshToken: includeToken ? issued.refreshToken : '',
      sessionId: issued.session._id,
      expires: Math.floor(issued.expiresAt.getTime() / 1000),
      entitlementToken: includeToken ? await this.deps.entitlements.beside(issued.session) : undefined,
    };
    if (responseType !== 'token') {
      credentials.code = await this.deps.sessions.issueAuthCode(issued.session, redirectUri);
      if (redirectUri) credentials.redirectUri = redirectUri;
    }
    if (request.withHasResourcePassword) {
      const relationship = issued.session.resource_id
        ? await this.deps.relationships.find(issued.session.resource_id, issued.session.user_id)
        : null;
      credentials.hasResourcePassword = !!relationship?.password_hash;
    }
    if (request.withIdpToken || request.withIdpCustomToken) {
      const { session } = issued;
      const resource = session.resource_id ? await this.deps.resources.get(session.resource_id) : null;
      const wanted = { idToken: request.withIdpToken, customToken: request.withIdpCustomToken };
      const tokens = await this.deps.providerTokens.forRefresh(resource, session.user_id, wanted);
      credentials.idpToken = tokens.idToken;
      credentials.idpCustomToken = tokens.customToken;
    }
    return credentials;
  }
}
