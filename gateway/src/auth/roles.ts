/** The six roles of document 1, Authentication rule 1. */
export type Role = 'guest' | 'user' | 'service_account' | 'admin' | 'partner' | 'root';

/** Roles that a route may list; `guest` means anyone may call it. */
export type RouteAccess = readonly Role[];

/**
 * Whether a caller of `role` may call a route open to `allowed`: root bypasses, partner inherits
 * admin grants, and every signed-in person (user, admin, partner) passes a `user` route. A
 * service account passes only routes that name it: member tokens and service keys are distinct.
 */
export function isAllowed(role: Role, allowed: RouteAccess): boolean {
  if (allowed.includes('guest') || role === 'root') return true;
  if (allowed.includes(role)) return true;
  if (role === 'partner' && allowed.includes('admin')) return true;
  const person = role === 'user' || role === 'admin' || role === 'partner';
  return person && allowed.includes('user');
}

/** Admin context: the caller may see admin-only fields (created_at, updated_at, country_vat). */
export const isAdminRole = (role: Role): boolean => role === 'admin' || role === 'partner' || role === 'root';

export function toRole(value: string): Role {
  switch (value) {
    case 'admin':
    case 'partner':
    case 'root':
    case 'service_account':
      return value;
    default:
      return 'user';
  }
}
