import type { Resource } from '@masthead/proto/accounts';
import type { User } from '@masthead/proto/identity';
import type { Role } from './roles.js';

/** Who is calling, as established by the shared checks; `U` is what the access class proves. */
export interface Caller<U extends User | null = User | null> {
  /**
   * The role in the session's resource, which is the request's (docs/adr/0085): a role counts
   * only in the resource it was granted for, root's everywhere, so a service handed this role
   * applies it to records of the caller's resource only (docs/adr/0239).
   */
  role: Role;
  user: U;
  sessionId: number;
  /** Set when a `service-api-key` identified the caller (role `service_account`). */
  serviceAccountId?: number;
}

/**
 * Everything a route handler may rely on after the shared checks passed. `R` and `U` are what
 * the route's access class proves about the resource and the user (routes/access.ts derives
 * them from the class's policy); handlers never assert them.
 */
export interface RequestContext<R extends Resource | null = Resource | null, U extends User | null = User | null> {
  requestId: string;
  resource: R;
  caller: Caller<U>;
  /** Raw credential headers the action itself may need (never logged). */
  headers: {
    token: string;
    session: string;
    sourceType: string;
    idpToken: string;
  };
  ip: string;
  userAgent: string;
}

/** A context with a resource, whatever else its class proves (helpers shared across classes). */
export type ResourceContext = RequestContext<Resource>;
/** A context with a signed-in user and a resource: member, admin and service-account routes. */
export type MemberScopeContext = RequestContext<Resource, User>;

export const GUEST: Caller<null> = { role: 'guest', user: null, sessionId: 0 };
