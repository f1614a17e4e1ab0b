import { userNotExist } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import { assertAcceptablePassword, MAX_PASSWORD_LENGTH } from '../passwords/password-policy.js';
import type { PasswordHasher } from '../passwords/password-hasher.js';
import { readMember } from '../credentials/member-read.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import type { SessionRepository } from '../sessions/session.repository.js';
import type { SignInThrottle } from '../throttling/sign-in-throttle.js';
import type { UserRepository } from '../users/user.repository.js';
import { currentPasswordRequired, currentPasswordWrong, passwordAlreadySet, passwordNotSet } from './profile.errors.js';
import { passwordRequired } from '../passwords/password.errors.js';

interface ResourcePasswordDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  sessions: SessionRepository;
  hasher: PasswordHasher;
  throttle: SignInThrottle;
  events: EventPublisher;
  access: AccessAnnouncer;
}

export const PASSWORD_CHANGED = 'user_password_changed';

export interface PasswordChange {
  userId: number;
  resourceId: number;
  /** The session making the change: it stays, the others in the resource end. */
  sessionId: number;
  currentPassword: string;
  password: string;
}

/**
 * The resource password: when set, sign-in in this resource uses it instead of the global
 * password (document 1, POST /authorization; relationship schema). Decisions in docs/adr/0062.
 */
export class ResourcePasswordService {
  constructor(private readonly deps: ResourcePasswordDeps) {}

  async hasPassword(userId: number, resourceId: number): Promise<boolean> {
    const relationship = await this.deps.relationships.find(resourceId, userId);
    return Boolean(relationship?.password_hash);
  }

  /** POST /user/password: only while none is set (409 password_already_set). */
  async setInitial(userId: number, resourceId: number, password: string): Promise<void> {
    assertNewPassword(password);
    if (await this.hasPassword(userId, resourceId)) throw passwordAlreadySet();
    const stored = await this.deps.relationships.setInitialPasswordHash(resourceId, userId, await this.deps.hasher.hash(password));
    if (!stored) throw passwordAlreadySet();
    await this.deps.events.publish({
      name: PASSWORD_CHANGED,
      resourceId,
      payload: { user_id: userId, initial: true, revoked_sessions: 0 },
    });
  }

  /**
   * PUT /user/password: the current resource password is required and guessing it counts
   * against the same per-account limit as sign-in (a stolen session must not become a free
   * guessing oracle). Success revokes the member's other sessions here; returns how many.
   */
  async change(change: PasswordChange): Promise<number> {
    const { relationships, hasher, throttle } = this.deps;
    if (!change.currentPassword) throw currentPasswordRequired();
    assertNewPassword(change.password);
    const { user, relationship } = await readMember(this.deps, change.userId, change.resourceId);
    if (!user) throw userNotExist();
    if (!relationship?.password_hash) throw passwordNotSet();
    await throttle.assertAllowed(user.email);
    // Over-long input is wrong without a hash (bounded work per request, ADR 0004).
    const { valid } =
      change.currentPassword.length > MAX_PASSWORD_LENGTH * 2
        ? { valid: false }
        : await hasher.verify(relationship.password_hash, change.currentPassword);
    if (!valid) {
      await throttle.recordFailure(user.email);
      throw currentPasswordWrong();
    }
    await throttle.reset(user.email);
    await relationships.setPasswordHash(change.resourceId, change.userId, await hasher.hash(change.password));
    const revoked = await this.deps.sessions.revokeOthers(change.userId, change.resourceId, change.sessionId);
    // Gateways cache session checks (ADR 0042): the revoked sessions must fail at once.
    if (revoked > 0) this.deps.access.memberChanged(change.userId, change.resourceId, 'password_changed');
    await this.deps.events.publish({
      name: PASSWORD_CHANGED,
      resourceId: change.resourceId,
      payload: { user_id: change.userId, initial: false, revoked_sessions: revoked },
    });
    return revoked;
  }
}

/** The registration policy (ADR 0004) applies to every new password. */
function assertNewPassword(password: string): void {
  if (!password) throw passwordRequired();
  assertAcceptablePassword(password);
}
