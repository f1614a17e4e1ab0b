import type { User } from '@masthead/proto/identity';

/** The user projection shared by sign-in and GET /user (ADR 0007 lists its fields). */
export function serializeUser(user: User): Record<string, unknown> {
  const projection: Record<string, unknown> = {
    id: user.id,
    email: user.email,
    active: user.active,
    nick_name: user.nickName ?? null,
    first_name: user.firstName ?? null,
    last_name: user.lastName ?? null,
    photo: user.photo ?? null,
    country: user.country ?? null,
    city: user.city ?? null,
    state: user.state ?? null,
    address: user.address ?? null,
    zip: user.zip ?? null,
    phone: user.phone ?? null,
    company: user.company ?? null,
    job: user.job ?? null,
    language_id: user.languageId ?? null,
    email_confirmed: user.emailConfirmed,
    created_at: user.createdAt,
    updated_at: user.updatedAt,
  };
  if (user.extra) projection['extra'] = user.extra;
  return projection;
}
