import { httpError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipRecord } from '../relationships/relationship.schema.js';
import type { ResourceDirectory } from '../resources/resource-directory.js';
import type { IssuedSession, SessionService } from '../sessions/session.service.js';
import type { UserRecord } from '../users/user.schema.js';
import type { UserRepository } from '../users/user.repository.js';
import type { MembershipAttacher } from './membership-attacher.js';
import { authorizationFail, isAllowedRedirect, type SignInCommand } from './sign-in.command.js';

export interface SignInContext {
  requestId: string;
  guestSession: string | null;
  sourceType: string | null;
  ip: string | null;
  userAgent: string | null;
}

export interface SignInOutcome {
  user: UserRecord;
  issued: IssuedSession;
  code: string | null;
  redirectUri: string | null;
  /** False for response type `code`: the client gets only the code. */
  includeToken: boolean;
}

interface SignInDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  sessions: SessionService;
  hasher: PasswordHasher;
  resources: ResourceDirectory;
  memberships: MembershipAttacher;
  events: EventPublisher;
  logger: Logger;
}

const BLOCKED_STATES = new Set(['locked', 'suspended']);

export class SignInService {
  constructor(private readonly deps: SignInDeps) {}

  async signIn(command: SignInCommand, context: SignInContext): Promise<SignInOutcome> {
    const { users, relationships, hasher } = this.deps;
    const resource = command.resourceId ? await this.deps.resources.get(command.resourceId, context.requestId) : null;
    if (command.redirectUri && !isAllowedRedirect(command.redirectUri, resource?.host)) {
      throw httpError(409, 'invalid_redirect_uri', 'redirect_uri must be on the resource host');
    }

    const user = await users.findCredentialsByEmail(command.email);
    const relationship = user && resource ? await relationships.find(resource.id, user._id) : null;
    // The resource password replaces the global one where it is set (document 1, POST /authorization).
    const storedHash = relationship?.password_hash ?? user?.password_hash ?? null;
    if (!user || !storedHash) {
      await hasher.verifyDummy(command.password);
      throw authorizationFail();
    }
    const { valid, needsRehash } = await hasher.verify(storedHash, command.password);
    if (!valid || !user.active || (relationship && BLOCKED_STATES.has(relationship.status))) throw authorizationFail();
    if (needsRehash) await this.rehash(user, relationship, command.password);

    if (resource && !relationship) {
      const { created } = await relationships.attach(resource.id, user._id);
      if (created) await this.deps.memberships.attachDefault(resource, user._id, context.requestId);
    }

    const issued = await this.deps.sessions.issue({
      userId: user._id,
      resourceId: resource?.id ?? 0,
      sourceType: context.sourceType,
      guestSession: context.guestSession,
      ip: context.ip,
      userAgent: context.userAgent,
    });
    const code =
      command.responseType === 'token' || !command.redirectUri
        ? null
        : await this.deps.sessions.issueAuthCode(issued.session, command.redirectUri);
    await this.deps.events.publish({
      name: 'user_login',
      resourceId: resource?.id ?? null,
      payload: {
        user_id: user._id,
        session_id: issued.session._id,
        source_type: context.sourceType,
        guest_session: context.guestSession,
        ip: context.ip,
        user_agent: context.userAgent,
      },
    });
    return { user, issued, code, redirectUri: command.redirectUri, includeToken: command.responseType !== 'code' };
  }

  /** Stores a hash with the current parameters; a failure here must not fail the sign-in. */
  private async rehash(user: UserRecord, relationship: RelationshipRecord | null, password: string): Promise<void> {
    try {
      const fresh = await this.deps.hasher.hash(password);
      if (relationship?.password_hash) await this.deps.relationships.setPasswordHash(relationship.resource_id, user._id, fresh);
      else await this.deps.users.update(user._id, { password_hash: fresh });
    } catch (error) {
      this.deps.logger.warn({ err: error, user_id: user._id }, 'password rehash skipped');
    }
  }
}
