import type { Logger } from '@masthead/core/logging';
import type { LockPolicy } from '../access/lock-policy.js';
import { readMember } from '../credentials/member-read.js';
import { isMemberRelationship, isSignInBlocked } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { ResourceDirectory } from '@masthead/core/resources';
import type { SessionContext, SessionStarter } from '../signin/session-starter.js';
import { isAllowedRedirect, parseResponseType, type ResponseType } from '../signin/sign-in.command.js';
import type { SignInOutcome } from '../signin/sign-in.service.js';
import type { UserRepository } from '../users/user.repository.js';
import { IdTokenRejected, type IdTokenVerifier } from './id-token-verifier.js';
import type { SocialLinkRepository } from './social-link.repository.js';
import { socialSignInFail } from './social.errors.js';
import { redirectNotOnHost } from '../signin/sign-in.errors.js';

export interface SocialSignInCommand {
  resourceId: number;
  provider: string;
  idToken: string;
  responseType: string;
  redirectUri: string;
}

interface SocialSignInDeps {
  verifier: IdTokenVerifier;
  links: SocialLinkRepository;
  users: UserRepository;
  relationships: RelationshipRepository;
  resources: ResourceDirectory;
  starter: SessionStarter;
  lockPolicy: LockPolicy;
  logger: Logger;
}

/**
 * One answer for every refusal (bad token, identity nobody linked, inactive user, blocked
 * relationship), so that the response tells nothing about which accounts exist or are linked.
 */
/** POST /social-authorization: sign-in through an identity a member linked earlier (ADR 0066). */
export class SocialSignInService {
  constructor(private readonly deps: SocialSignInDeps) {}

  async signIn(command: SocialSignInCommand, context: SessionContext): Promise<SignInOutcome> {
    const resource = await this.deps.resources.get(command.resourceId);
    const delivery = parseDelivery(command, resource.host);
    const userId = await this.linkedUserId(command);
    const { user, relationship } = await readMember(this.deps, userId, resource.id);
    if (!user || !user.active || isSignInBlocked(relationship)) throw socialSignInFail();

    // As at POST /authorization: the resource's lock policy (docs/adr/0070); a removed relationship rejoins.
    const member = isMemberRelationship(relationship);
    if (member && !(await this.deps.lockPolicy.admit(resource, user._id, context))) throw socialSignInFail();
    if (!member) await this.deps.starter.join(resource, user._id);
    const started = await this.deps.starter.start(user._id, resource, delivery, context, 'user_login');
    await this.deps.lockPolicy.trimDevices(resource, user._id, context.requestId);
    return { user, ...started };
  }

  private async linkedUserId(command: SocialSignInCommand): Promise<number> {
    try {
      const identity = await this.deps.verifier.verify(command.provider, command.idToken);
      const link = await this.deps.links.find(identity.provider, identity.sub);
      if (link) return link.user_id;
      this.deps.logger.info({ provider: command.provider }, 'social sign-in: identity not linked');
    } catch (error) {
      if (!(error instanceof IdTokenRejected)) throw error;
      this.deps.logger.info({ provider: command.provider, reason: error.reason }, 'social sign-in: token refused');
    }
    throw socialSignInFail();
  }
}

/** Response type and destination, by the rules of POST /authorization (409s as documented there). */
function parseDelivery(
  command: SocialSignInCommand,
  resourceHost: string | undefined,
): { responseType: ResponseType; redirectUri: string | null } {
  const responseType = parseResponseType(command.responseType, 'token');
  const redirectUri = command.redirectUri.trim() || null;
  if ((responseType !== 'token' && !redirectUri) || (redirectUri && !isAllowedRedirect(redirectUri, resourceHost))) {
    throw redirectNotOnHost();
  }
  return { responseType, redirectUri };
}
