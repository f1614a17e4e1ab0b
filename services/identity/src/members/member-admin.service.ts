import type { PasswordHasher } from '../passwords/password-hasher.js';
import { MIN_PASSWORD_LENGTH } from '../passwords/password-policy.js';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { ResourceRole } from '../relationships/relationship.schema.js';
import { normalizeEmail } from '../signin/sign-in.command.js';
import type { GlobalRole, UserRecord } from '../users/user.schema.js';
import { EMPTY_PROFILE, type UserRepository } from '../users/user.repository.js';
import { memberEmailInvalid, memberPasswordTooShort, unknownRole } from './member.errors.js';

export interface UpsertMemberCommand {
  resourceId: number;
  email: string;
  password: string;
  firstName: string | null;
  lastName: string | null;
  role: string;
}

const RESOURCE_ROLES: readonly string[] = ['user', 'admin', 'partner'];

export interface MemberAdminServiceDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  hasher: PasswordHasher;
  access: AccessAnnouncer;
}

/** Operator path (admin CLI, fixtures): create or update a member and its relationship. */
export class MemberAdminService {
  constructor(private readonly deps: MemberAdminServiceDeps) {}

  async upsert(command: UpsertMemberCommand): Promise<UserRecord> {
    const email = normalizeEmail(command.email);
    if (!email) throw memberEmailInvalid();
    if (command.password.length < MIN_PASSWORD_LENGTH) {
      throw memberPasswordTooShort(MIN_PASSWORD_LENGTH);
    }
    const role = command.role || 'user';
    const globalRole: GlobalRole = role === 'root' ? 'root' : 'user';
    if (role !== 'root' && !RESOURCE_ROLES.includes(role)) throw unknownRole(role);
    const passwordHash = await this.deps.hasher.hash(command.password);
    const profile = { first_name: command.firstName, last_name: command.lastName };
    const existing = await this.deps.users.findByEmail(email);
    let user: UserRecord;
    if (existing) {
      const credentials = { password_hash: passwordHash, role: globalRole, active: true };
      await this.deps.users.update(existing._id, profile);
      // The operator sets all three, whatever the newest state is (docs/adr/0210).
      await this.deps.users.changeCredentials(existing._id, () => credentials);
      user = { ...existing, ...profile, ...credentials };
    } else {
      user = await this.deps.users.create({
        ...EMPTY_PROFILE,
        ...profile,
        email,
        password_hash: passwordHash,
        active: true,
        email_confirmed: true,
        role: globalRole,
      });
    }
    if (command.resourceId) {
      const resourceRole: ResourceRole = role === 'root' ? 'user' : (role as ResourceRole);
      const { created } = await this.deps.relationships.attach(command.resourceId, user._id, resourceRole);
      if (!created) await this.deps.relationships.setRole(command.resourceId, user._id, resourceRole);
    }
    // Role, activity or profile may have changed under live sessions.
    if (existing) this.deps.access.memberChanged(user._id, command.resourceId || null, 'member_updated');
    return user;
  }
}
