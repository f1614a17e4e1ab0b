import type { Resource } from '@masthead/proto/accounts';
import type { SignInResponse } from '@masthead/proto/identity';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { assertAcceptablePassword } from '../passwords/password-policy.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { SessionService } from '../sessions/session.service.js';
import type { SessionContext } from '../signin/session-starter.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import type { UserRepository } from '../users/user.repository.js';
import { codeFailed, invalidCode } from './recovery.errors.js';
import { codeOwner } from './code-owner.js';
import type { MemberCodes } from './member-codes.js';
import type { RecoveredSession } from './recovered-session.js';
import type { RecoveryLimits } from './recovery-limits.js';

interface PasswordResetDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  hasher: PasswordHasher;
  sessions: SessionService;
  throttle: SignInThrottle;
  codes: MemberCodes;
  limits: RecoveryLimits;
  recovered: RecoveredSession;
}

/**
 * POST /confirm-password: a reset code and a new password establish a session (docs/adr/0055).
 * The new password follows the password policy and replaces the one sign-in checks in this
 * resource (the resource password where one is set, else the global one). Every earlier
 * session and refresh record of the member is revoked: whoever knew the old password is out.
 */
export class PasswordResetService {
  constructor(private readonly deps: PasswordResetDeps) {}

  async confirm(resource: Resource, code: string, password: string, context: SessionContext): Promise<SignInResponse> {
    await this.deps.limits.attempt(context.ip ?? '');
    if (!code.trim()) throw invalidCode();
    // Checked before the code is used, so that a refused password does not spend the code.
    assertAcceptablePassword(password);
    const record = await this.deps.codes.redeem(code, resource.id, ['password_reset']);
    if (!record) throw codeFailed();
    const user = await codeOwner(this.deps.users, record);
    if (!user) throw codeFailed();
    const relationship = await this.deps.recovered.assertMaySignIn(user, resource.id);

    const passwordHash = await this.deps.hasher.hash(password);
    if (relationship?.password_hash) await this.deps.relationships.setPasswordHash(resource.id, user._id, passwordHash);
    else await this.deps.users.setPasswordHash(user._id, passwordHash);
    // Reading the code proved the mailbox, so the address counts as confirmed too.
    await this.deps.users.update(user._id, { email_confirmed: true });
    await this.deps.sessions.revokeAllOfUser(user._id);
    // The sign-in throttle must not keep out the member who just proved the account is theirs.
    await this.deps.throttle.reset(user.email);
    return this.deps.recovered.start({ ...user, email_confirmed: true }, resource, relationship, context);
  }
}
