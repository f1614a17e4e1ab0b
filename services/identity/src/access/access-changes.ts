import type { EventPublisher } from '@masthead/core/events';
import type { MoveEvent } from './access-events.js';
import type { RelationshipState } from '../relationships/relationship.schema.js';
import type { AccessAnnouncer, AccessChangeReason } from '../sessions/access-announcer.js';
import type { MemberSessions } from './member-sessions.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';

export interface AccessChange {
  userId: number;
  resourceId: number;
  /** The request that caused the change; events carry it so that a change can be traced. */
  requestId: string;
  from: readonly RelationshipState[];
  /** `active` reopens the relationship (restore); any other state blocks it. */
  to: RelationshipState;
  /** Event name (ACCESS_EVENTS) published when the move happened. */
  event: MoveEvent;
  /** Extra event payload (labels and IDs only). */
  details?: Record<string, unknown>;
}

/** What a change did (`apply` answers null when the relationship was in none of the `from` states). */
export interface AppliedChange {
  /** Sessions revoked by a reopening move; empty for a blocking one, which keeps them. */
  revokedSessionIds: number[];
}

/** What the gateways' session-check caches are told (ADR 0042), by the state moved to. */
const ANNOUNCED_REASONS: Record<RelationshipState, AccessChangeReason> = {
  active: 'restored',
  locked: 'locked',
  suspended: 'suspended',
  removed: 'profile_removed',
};

export interface AccessChangesDeps {
  /** The guarded state moves (credential versions, docs/adr/0210). */
  transitions: Pick<RelationshipRepository, 'move'>;
  sessions: MemberSessions;
  events: EventPublisher;
  announcer: AccessAnnouncer;
}

/**
 * One relationship change as every path makes it, for that resource only:
 * - **blocking** (away from `active`: lock, suspension, removal): the guarded state move, then the
 *   refresh records of the member's sessions there are deleted. The sessions stay, so their tokens
 *   answer 401 `auth_access_fail` (the gateway's member check) and cannot be renewed.
 * - **reopening** (back to `active`: the operator's restore): the member's sessions there, all
 *   from before, are revoked first, so that no token of the blocked time comes back to life
 *   (not even between the move and the revocation), then the guarded move.
 *
 * Then the announcement that drops the member's cached session checks in every gateway
 * (ADR 0042), then the event. Sessions of the member's other resources are never touched.
 */
export class AccessChanges {
  constructor(private readonly deps: AccessChangesDeps) {}

  async apply(change: AccessChange): Promise<AppliedChange | null> {
    const { userId, resourceId } = change;
    const reopening = change.to === 'active';
    const revokedSessionIds = reopening ? await this.deps.sessions.revokeAll(userId, resourceId) : [];
    if (!(await this.deps.transitions.move(resourceId, userId, change.from, change.to))) return null;
    if (!reopening) await this.deps.sessions.dropRenewals(userId, resourceId);
    this.deps.announcer.memberChanged(userId, resourceId, ANNOUNCED_REASONS[change.to]);
    await this.deps.events.publish({
      name: change.event,
      resourceId,
      payload: {
        user_id: userId,
        ...change.details,
        ...(reopening ? { revoked_session_ids: revokedSessionIds } : {}),
        request_id: change.requestId,
      },
    });
    return { revokedSessionIds };
  }
}
