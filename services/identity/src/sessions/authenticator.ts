import { RelationshipStatus, SessionState, type AuthenticateResponse } from '@masthead/proto/identity';
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

/** Role precedence for the effective role: a global root or admin outranks a resource role. */
const ROLE_RANK: Record<string, number> = { user: 0, admin: 1, partner: 2, root: 3 };

function effectiveRole(globalRole: string, relationship: RelationshipRecord | null): string {
  // A service-account user is that and nothing else, whatever relationship it may have.
  if (globalRole === 'service_account') return globalRole;
  const resourceRole = relationship?.role ?? 'user';
  return (ROLE_RANK[globalRole] ?? 0) >= (ROLE_RANK[resourceRole] ?? 0) ? globalRole : resourceRole;
}

/**
 * Everything the gateway's shared checks need, in one call: session state, user, relationship
 * status and role. The user and relationship are read in parallel once the session is known.
 */
export class Authenticator {
  constructor(
    private readonly sessions: SessionService,
    private readonly users: UserRepository,
    private readonly relationships: RelationshipRepository,
  ) {}

  async authenticate(token: string, resourceId: number): Promise<AuthenticateResponse> {
    const { state, session } = await this.sessions.resolve(token);
    if (!session) return { state: STATES.unknown, sessionId: 0, relationship: RelationshipStatus.RELATIONSHIP_STATUS_NONE, role: '' };
    const [user, relationship] = await Promise.all([
      this.users.findById(session.user_id),
      resourceId ? this.relationships.find(resourceId, session.user_id) : Promise.resolve(null),
    ]);
    if (!user) return { state: STATES.unknown, sessionId: 0, relationship: RelationshipStatus.RELATIONSHIP_STATUS_NONE, role: '' };
    return {
      state: STATES[state],
      sessionId: session._id,
      user: toUserMessage(user, relationship?.extra),
      relationship: toRelationshipStatus(relationship),
      role: effectiveRole(user.role, relationship),
    };
  }
}
