import type { UserRepository } from '../users/user.repository.js';
import type { UserRecord } from '../users/user.schema.js';
import type { MemberCodeRecord } from './member-code.schema.js';

/**
 * The account a used code speaks for, with its credentials; null when the account has moved to
 * another address since the code was issued (the code went to a mailbox it no longer uses).
 */
export async function codeOwner(users: UserRepository, record: MemberCodeRecord): Promise<UserRecord | null> {
  const user = await users.findCredentialsByEmail(record.email);
  return user && user._id === record.user_id ? user : null;
}
