import { invalidEmail, userNotExist } from '@masthead/core/errors';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { MAX_PASSWORD_LENGTH } from '../passwords/password-policy.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { normalizeEmail } from '../signin/sign-in.command.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import type { UserRepository } from '../users/user.repository.js';
import type { UserRecord } from '../users/user.schema.js';
import type { CodeMailer } from './code-mailer.js';
import type { RecoveryLimits } from './recovery-limits.js';
import { emailChangePasswordWrong, emailUnchanged } from './recovery.errors.js';
import { userExists } from '../users/user.errors.js';

interface EmailChangeDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  hasher: PasswordHasher;
  throttle: SignInThrottle;
  mailer: CodeMailer;
  limits: RecoveryLimits;
}

export interface EmailChangeRequest {
  resourceId: number;
  userId: number;
  email: string;
  password: string;
  ip: string;
}

/**
 * PUT /user/email: mails a code to the new address; the account moves there only when that
 * code is confirmed through POST /confirm-email (docs/adr/0058). The current password is asked
 * for, so that a stolen session alone cannot move the account to another mailbox; wrong
 * passwords count against the account's sign-in throttle like failed sign-ins.
 */
export class EmailChangeService {
  constructor(private readonly deps: EmailChangeDeps) {}

  async request(request: EmailChangeRequest): Promise<void> {
    await this.deps.limits.requestFromAddress('email_change', request.ip);
    await this.deps.limits.requestForAccount('email_change', `user:${request.userId}`);
    const email = normalizeEmail(request.email);
    if (!email) throw invalidEmail();
    const current = await this.deps.users.findById(request.userId);
    const user = current && (await this.deps.users.findCredentialsByEmail(current.email));
    if (!user) throw userNotExist();
    if (email === user.email) throw emailUnchanged();
    await this.assertCurrentPassword(user, request.resourceId, request.password);
    if (await this.deps.users.findCredentialsByEmail(email)) throw userExists();
    await this.deps.mailer.send('email_change', { userId: user._id, resourceId: request.resourceId, email });
  }

  /** The password sign-in would check here; an account without one (provider only) skips this. */
  private async assertCurrentPassword(user: UserRecord, resourceId: number, password: string): Promise<void> {
    const relationship = await this.deps.relationships.find(resourceId, user._id);
    const storedHash = relationship?.password_hash ?? user.password_hash;
    if (!storedHash) return;
    await this.deps.throttle.assertAllowed(user.email);
    if (!password || password.length > MAX_PASSWORD_LENGTH) throw emailChangePasswordWrong();
    if ((await this.deps.hasher.verify(storedHash, password)).valid) return;
    await this.deps.throttle.recordFailure(user.email);
    throw emailChangePasswordWrong();
  }
}
