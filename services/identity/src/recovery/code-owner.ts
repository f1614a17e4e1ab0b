import type { UserRepository, UserView } from '../users/user.repository.js';
import type { MemberCodeRecord } from './member-code.schema.js';

/**
 * The account a used code speaks for (without credentials); null when the account has moved to
 * another address since the code was issued (the code went to a mailbox it no longer uses).
 */
export async function codeOwner(users: UserRepository, record: MemberCodeRecord): Promise<UserView | null> {
  const user = await users.findByEmail(record.email);
  return user && user._id === record.user_id ? user : null;
}
