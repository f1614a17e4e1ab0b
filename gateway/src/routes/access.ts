import type { Resource } from '@masthead/proto/accounts';
import type { User } from '@masthead/proto/identity';
import type { RequestContext } from '../auth/context.js';
import type { RoutePolicy } from '../auth/shared-checks.js';
import { authFailed, resourceNotExists } from '@masthead/core/errors';

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
  /**
   * External purchase records: a service-account key with a grant for the action. The caller's
   * `serviceAccountId` is its account; root bypasses the ACL and then has none.
   */
  serviceAccount: { access: ['service_account'], resource: 'required', member: true, sessionChecks: true, serviceKey: true },
  /** Account requests: a fixed deployment resource; a supplied key selects nothing. */
  external: { access: ['guest'], resource: 'ignored', member: false, sessionChecks: true },
} as const satisfies Record<string, RoutePolicy>;

export type AccessClass = keyof typeof ACCESS_CLASSES;

type PolicyOf<A extends AccessClass> = (typeof ACCESS_CLASSES)[A];
type ResourceOf<P extends RoutePolicy> = P['resource'] extends 'required'
  ? Resource
  : P['resource'] extends 'ignored'
    ? null
    : Resource | null;
type UserOf<P extends RoutePolicy> = 'guest' extends P['access'][number] ? User | null : User;

/**
 * The context a handler of access class `A` receives: the resource and user its policy proves,
 * branded with the class so that a handler written for one class does not fit another's row.
 * A handler serving several classes names them all (`ContextOf<'guest' | 'admin'>`).
 */
export type ContextOf<A extends AccessClass> = A extends AccessClass
  ? RequestContext<ResourceOf<PolicyOf<A>>, UserOf<PolicyOf<A>>> & { readonly access: A }
  : never;

/**
 * Proves at run time what `ContextOf<A>` states, in this one place: the shared checks already
 * refused a missing required resource and a guest on a signed-in route, so these throws only
 * guard the types against a policy edit that forgot them.
 */
export function narrowContext<A extends AccessClass>(access: A, context: RequestContext): ContextOf<A> {
  const policy: RoutePolicy = ACCESS_CLASSES[access];
  if (policy.resource === 'required' && !context.resource) throw resourceNotExists();
  if (!policy.access.includes('guest') && !context.caller.user) throw authFailed();
  const resource = policy.resource === 'ignored' ? null : context.resource;
  return { ...context, resource, access } as ContextOf<A>;
}
