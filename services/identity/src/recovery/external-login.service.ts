import { invalidEmail, userNotExist } from '@masthead/core/errors';
import type { Resource } from '@masthead/proto/accounts';
import type { SignInResponse } from '@masthead/proto/identity';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { SessionContext } from '../signin/session-starter.js';
import { normalizeEmail } from '../signin/sign-in.command.js';
import { authorizationFail } from '../signin/sign-in.errors.js';
import type { UserRepository } from '../users/user.repository.js';
import { codeOwner } from './code-owner.js';
import type { IssuedCode, MemberCodes } from './member-codes.js';
import type { RecoveredSession } from './recovered-session.js';
import type { RecoveryLimits } from './recovery-limits.js';

interface ExternalLoginDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  codes: MemberCodes;
  limits: RecoveryLimits;
  recovered: RecoveredSession;
  /** Lifetime of a token, and the most an operator may ask for. */
  maxTtlSeconds: number;
}

/**
 * External authentication (docs/adr/0057): a trusted party — the operator through the admin
 * CLI — issues a single-use, short-lived login token for a member of a resource; GET
 * /auth/external/{token} consumes it and returns the session result, as sign-in does.
 */
export class ExternalLoginService {
  constructor(private readonly deps: ExternalLoginDeps) {}

  async issue(resourceId: number, rawEmail: string, ttlSeconds: number): Promise<IssuedCode & { userId: number }> {
    const email = normalizeEmail(rawEmail);
    if (!email) throw invalidEmail();
    const user = await this.deps.users.findCredentialsByEmail(email);
    const relationship = user && (await this.deps.relationships.find(resourceId, user._id));
    if (!user || !relationship) throw userNotExist();
    const ttl = ttlSeconds > 0 ? Math.min(ttlSeconds, this.deps.maxTtlSeconds) : this.deps.maxTtlSeconds;
    const issued = await this.deps.codes.issue('external_login', { userId: user._id, resourceId, email }, ttl);
    return { ...issued, userId: user._id };
  }

  /** Any token that cannot be used answers like a failed sign-in: 401 authorization_fail. */
  async signIn(resource: Resource, token: string, context: SessionContext): Promise<SignInResponse> {
    await this.deps.limits.attempt(context.ip ?? '');
    const record = await this.deps.codes.redeem(token, resource.id, ['external_login']);
    if (!record) throw authorizationFail();
    const user = await codeOwner(this.deps.users, record);
    if (!user) throw authorizationFail();
    const relationship = await this.deps.recovered.assertMaySignIn(user, resource.id);
    return this.deps.recovered.start(user, resource, relationship, context);
  }
}
