import type { User } from '@masthead/proto/identity';
import type { UserView } from './user.repository.js';

const optional = (value: string | null) => value ?? undefined;

/** Domain user → the wire User message (the gateway writes the JSON field names). */
export function toUserMessage(user: UserView, extra?: Record<string, unknown>): User {
  return {
    id: user._id,
    email: user.email,
    active: user.active,
    nickName: optional(user.nick_name),
    firstName: optional(user.first_name),
    lastName: optional(user.last_name),
    photo: optional(user.photo),
    country: optional(user.country),
    city: optional(user.city),
    state: optional(user.state),
    address: optional(user.address),
    zip: optional(user.zip),
    phone: optional(user.phone),
    company: optional(user.company),
    job: optional(user.job),
    languageId: user.language_id ?? undefined,
    emailConfirmed: user.email_confirmed,
    createdAt: user.created_at.toISOString(),
    updatedAt: user.updated_at.toISOString(),
    extra,
  };
}
