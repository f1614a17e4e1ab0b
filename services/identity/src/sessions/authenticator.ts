import { RelationshipStatus, SessionState, type AuthenticateResponse } from '@masthead/proto/identity';
import { readMember } from '../credentials/member-read.js';
import { toRelationshipStatus } from '../relationships/relationship-status.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipRecord } from '../relationships/relationship.schema.js';
import { toUserMessage } from '../users/user.projection.js';
import type { UserRepository } from '../users/user.repository.js';
import type { SessionService } from './session.service.js';

const STATES = {
  active: SessionState.SESSION_STATE_ACTIVE,
  expired: SessionState.SESSION_STATE_EXPIRED,
  compromised: SessionState.SESSION_STATE_COMPROMISED,
  unknown: SessionState.SESSION_STATE_UNKNOWN,
} as const;

/** The answer for a token that identifies no session here: the caller is a guest. */
const UNKNOWN: AuthenticateResponse = {
  state: STATES.unknown,
  sessionId: 0,
  relationship: RelationshipStatus.RELATIONSHIP_STATUS_NONE,
  role: '',
};

/** Role precedence for the effective role: a global root or admin outranks a resource role. */
const ROLE_RANK: Record<string, number> = { user: 0, admin: 1, partner: 2, root: 3 };

function effectiveRole(globalRole: string, relationship: RelationshipRecord | null): string {
  // A service-account user is that and nothing else, whatever relationship it may have.
  if (globalRole === 'service_account') return globalRole;
  const resourceRole = relationship?.role ?? 'user';
  return (ROLE_RANK[globalRole] ?? 0) >= (ROLE_RANK[resourceRole] ?? 0) ? globalRole : resourceRole;
}

export interface AuthenticatorDeps {
  sessions: SessionService;
  users: UserRepository;
  relationships: RelationshipRepository;
}

/**
 * Everything the gateway's shared checks need, in one call: session state, user, relationship
 * status and role. The user and relationship are read in parallel once the session is known.
 */
export class Authenticator {
  constructor(private readonly deps: AuthenticatorDeps) {}

  /**
   * `resourceId` is the resource the request names, 0 when it names none. A session works only
   * in the resource it was issued for (ADR 0085): named with another resource it answers as if no
   * token had been sent (unknown), and named with none it acts in its own resource, so the member
   * checks (suspension, lock, role) always judge the session's resource.
   */
  async authenticate(token: string, resourceId: number): Promise<AuthenticateResponse> {
    const { state, session } = await this.deps.sessions.resolve(token);
    if (!session || (resourceId && session.resource_id !== resourceId)) return UNKNOWN;
    const { user, relationship } = await readMember(this.deps, session.user_id, session.resource_id, { recent: true });
    if (!user) return UNKNOWN;
    return {
      state: STATES[state],
      sessionId: session._id,
      user: toUserMessage(user, relationship?.extra),
      relationship: toRelationshipStatus(relationship),
      role: effectiveRole(user.role, relationship),
    };
  }
}
