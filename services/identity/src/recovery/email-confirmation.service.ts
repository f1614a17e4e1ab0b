import { isDuplicateKey } from '@masthead/core/mongo';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import type { UserRepository } from '../users/user.repository.js';
import { codeFailed, invalidCode } from './recovery.errors.js';
import type { MemberCodes } from './member-codes.js';
import type { RecoveryLimits } from './recovery-limits.js';
import { userExists } from '../users/user.errors.js';

interface EmailConfirmationDeps {
  users: UserRepository;
  codes: MemberCodes;
  limits: RecoveryLimits;
  access: AccessAnnouncer;
}

/**
 * POST /confirm-email. One route confirms both kinds of mailed address codes: a confirmation
 * code marks the account's address confirmed; an email-change code (PUT /user/email) moves the
 * account to the new address, confirmed (docs/adr/0058).
 */
export class EmailConfirmationService {
  constructor(private readonly deps: EmailConfirmationDeps) {}

  /** Returns the confirmed address. */
  async confirm(resourceId: number, code: string, ip: string): Promise<string> {
    await this.deps.limits.attempt(ip);
    if (!code.trim()) throw invalidCode();
    const record = await this.deps.codes.redeem(code, resourceId, ['email_confirmation', 'email_change']);
    if (!record) throw codeFailed();
    const user = await this.deps.users.findById(record.user_id);
    if (!user) throw codeFailed();
    if (record.purpose === 'email_confirmation') {
      // The account moved to another address since the code was sent: it proves nothing now.
      if (user.email !== record.email) throw codeFailed();
      await this.deps.users.update(user._id, { email_confirmed: true });
      this.deps.access.memberChanged(user._id, null, 'member_updated');
      return record.email;
    }
    // Another account may have taken the address since the change was requested.
    if ((await this.deps.users.findIdByEmail(record.email)) !== null) throw userExists();
    try {
      await this.deps.users.update(user._id, { email: record.email, email_confirmed: true });
    } catch (error) {
      // Taken in the meantime: the unique email index decides.
      if (isDuplicateKey(error)) throw userExists();
      throw error;
    }
    // The user projection the gateways cached with the member's sessions carries the old address.
    this.deps.access.memberChanged(user._id, null, 'member_updated');
    return record.email;
  }
}
