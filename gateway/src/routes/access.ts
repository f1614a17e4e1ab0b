import type { RoutePolicy } from '../auth/shared-checks.js';

/**
 * The access classes of the spec, each a policy for the shared checks. Named once here so that
 * the route table reads like the spec's "Access" column.
 */
export const ACCESS_CLASSES = {
  /** Guest ACL; a supplied resource key must resolve. */
  guest: { access: ['guest'], resource: 'optional', member: false, sessionChecks: true },
  /** Guest ACL in a resource's context. */
  guestWithResource: { access: ['guest'], resource: 'required', member: false, sessionChecks: true },
  /**
   * Guest ACL, so that a call without a user reaches its own answer (POST /cleanup-refresh's 404),
   * but a member's token meets the member check (a blocked relationship: 401 auth_access_fail).
   */
  guestOrMember: { access: ['guest'], resource: 'optional', member: true, sessionChecks: true },
  /** Member context (document 1, Authentication rule 1). */
  member: { access: ['user'], resource: 'required', member: true, sessionChecks: true },
  /** Member context where the resource is optional at action level (GET /user, logout). */
  memberOptionalResource: { access: ['user'], resource: 'optional', member: true, sessionChecks: true },
  /** GET /resource: authenticated, but excluded from session expiry/revocation checks. */
  memberAnySession: { access: ['user'], resource: 'required', member: true, sessionChecks: false },
  /** Admin operations (partner inherits, root bypasses). */
  admin: { access: ['admin'], resource: 'required', member: true, sessionChecks: true },
  /** External purchase records: a service-account key with a grant for the action. */
  serviceAccount: { access: ['service_account'], resource: 'required', member: true, sessionChecks: true, serviceKey: true },
  /** Account requests: a fixed deployment resource; a supplied key selects nothing. */
  external: { access: ['guest'], resource: 'ignored', member: false, sessionChecks: true },
} as const satisfies Record<string, RoutePolicy>;

export type AccessClass = keyof typeof ACCESS_CLASSES;
