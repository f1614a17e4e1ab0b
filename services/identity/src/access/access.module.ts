import type { ServiceRuntime } from '@masthead/core/service';
import { memberAccessHandlers } from '../grpc/access.handlers.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import type { UserRepository } from '../users/user.repository.js';
import { AccessChanges } from './access-changes.js';
import { LockPolicy } from './lock-policy.js';
import { MemberAccessService, type ResourceScopedData } from './member-access.service.js';
import type { MemberSessions } from './member-sessions.js';

export interface AccessModuleDeps {
  runtime: ServiceRuntime;
  users: UserRepository;
  relationships: RelationshipRepository;
  memberSessions: MemberSessions;
  announcer: AccessAnnouncer;
  /** What leaves with a removed profile besides the relationship (tags, extra data). */
  memberData: ResourceScopedData[];
}

/** The access area: relationship changes, the lock policy, and the member's own suspension and removal. */
export function createAccessModule(deps: AccessModuleDeps) {
  const { runtime, users, relationships, memberSessions, announcer } = deps;
  const changes = new AccessChanges({
    transitions: relationships,
    sessions: memberSessions,
    events: runtime.events,
    announcer,
  });
  const lockPolicy = new LockPolicy({ sessions: memberSessions, changes, events: runtime.events, announcer });
  const memberAccess = new MemberAccessService({ relationships, users, changes, memberData: deps.memberData });
  return { lockPolicy, handlers: memberAccessHandlers(memberAccess) };
}
