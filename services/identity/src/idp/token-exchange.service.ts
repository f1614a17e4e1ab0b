import type { Resource } from '@masthead/proto/accounts';
import type { EntitlementTokens } from '../entitlements/entitlement-tokens.js';
import type { SessionContext, SessionEvent, SessionStarter } from '../signin/session-starter.js';
import type { IdentityLinker } from './identity-linker.js';
import type { IdentityProvider } from './identity-provider.js';
import type { InvitationAcceptor } from './invitations.js';
import { verifyRequestToken } from './token-verifier.js';
import { invitationNotAcceptable, oauthFailed } from './idp.errors.js';

export interface ExchangeCommand {
  idToken: string;
  invite: string;
  /** The create-member flag: undefined unless the client sent a JSON boolean (default true). */
  createMember: boolean | undefined;
}

export interface ExchangeOutcome {
  token: string;
  existed: boolean;
  registered: boolean;
  /** Beyond the spec (docs/adr/0246); absent when it could not be signed. */
  entitlementToken: string | undefined;
}

interface ExchangeDeps {
  provider: IdentityProvider;
  linker: IdentityLinker;
  starter: SessionStarter;
  invitations: InvitationAcceptor;
  entitlements: EntitlementTokens;
}

const TOKEN_DELIVERY = { responseType: 'token', redirectUri: null } as const;
/** Invitation codes are short; anything longer is not one. */
const MAX_INVITE_LENGTH = 128;

/**
 * POST /idp/oauth/token (document 1, A): a verified provider ID token for a session token. A
 * linked identity signs in (200, `user_login`); otherwise the registration path links or creates
 * the member (201, `user_signup`).
 */
export class TokenExchangeService {
  constructor(private readonly deps: ExchangeDeps) {}

  async exchange(command: ExchangeCommand, resource: Resource, context: SessionContext): Promise<ExchangeOutcome> {
    const verified = await verifyRequestToken(this.deps.provider, resource, command.idToken);
    const invite = command.invite.trim();
    if (invite.length > MAX_INVITE_LENGTH) throw invitationNotAcceptable();
    // Checked before anything is written, so a refused invitation leaves no half-made member.
    if (invite) await this.deps.invitations.assertAcceptable(resource, invite, verified.identity.email ?? '');

    const member = await this.deps.linker.resolve(resource, verified, {
      mayJoin: command.createMember !== false || invite !== '',
    });
    if (invite) {
      const { _id: id, email, role } = member.user;
      await this.deps.invitations.accept(resource, { id, email, role }, invite);
    }
    const event = member.registered ? 'user_signup' : 'user_login';
    const { session, token } = await this.startSession(member.user._id, resource, context, event, member.registered);
    const entitlementToken = await this.deps.entitlements.beside(session);
    return { token, existed: member.existed, registered: member.registered, entitlementToken };
  }

  /** Session issuance; for an existing identity a failure is the documented 400 oauth_failed. */
  private async startSession(userId: number, resource: Resource, context: SessionContext, event: SessionEvent, registered: boolean) {
    try {
      const started = await this.deps.starter.start(userId, resource, TOKEN_DELIVERY, context, event);
      return started.issued;
    } catch (error) {
      if (registered) throw error;
      throw oauthFailed();
    }
  }
}
