import type { Resource } from '@masthead/proto/accounts';
import type { User } from '@masthead/proto/identity';
import type { Role } from './roles.js';

/** Who is calling, as established by the shared checks. */
export interface Caller {
  role: Role;
  user: User | null;
  sessionId: number;
  /** Set when a `service-api-key` identified the caller (role `service_account`). */
  serviceAccountId?: number;
}

/** Everything a route handler may rely on after the shared checks passed. */
export interface RequestContext {
  requestId: string;
  resource: Resource | null;
  caller: Caller;
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

export const GUEST: Caller = { role: 'guest', user: null, sessionId: 0 };
