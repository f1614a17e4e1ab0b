import { authAccessFail, userNotExist } from '@masthead/core/errors';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { RelationshipState } from '../relationships/relationship.schema.js';
import type { UserRepository } from '../users/user.repository.js';
import type { AccessChanges } from './access-changes.js';
import { ACCESS_EVENTS, type MoveEvent } from './access-events.js';
import { notResourceMember, relationshipChanged, relationshipNotBlocked } from './access.errors.js';

/** A relationship change as the caller sees it. */
export interface MemberAccessOutcome {
  userId: number;
  resourceId: number;
  previousStatus: RelationshipState;
  status: RelationshipState;
  revokedSessionIds: number[];
}

/** Data of one member in one resource, owned by another domain of identity. */
export interface ResourceScopedData {
  removeMemberData(userId: number, resourceId: number): Promise<void>;
}

/** The member, by ID or by email (operators name members by email). */
export interface MemberRef {
  userId: number;
  email: string;
}

interface ChangeTarget {
  userId: number;
  resourceId: number;
  requestId: string;
}

interface MemberAccessDeps {
  relationships: RelationshipRepository;
  users: UserRepository;
  changes: AccessChanges;
  /** What leaves with the profile besides the relationship's own fields (tags, extra data). */
  memberData: ResourceScopedData[];
}

/**
 * The member's own relationship changes (`POST /user/suspend`, `DELETE /user/profile`) and the
 * operator's restore (docs/adr/0071). Each concerns one resource only.
 */
export class MemberAccessService {
  constructor(private readonly deps: MemberAccessDeps) {}

  /**
   * Suspends the member here; its sessions here stay, refused with `auth_access_fail`, and lose
   * their refresh records. An operator restores it.
   */
  suspend(userId: number, resourceId: number, requestId: string): Promise<MemberAccessOutcome> {
    return this.leaveActive({ userId, resourceId, requestId }, 'suspended', ACCESS_EVENTS.suspended);
  }

  /**
   * Removes the member's profile here: the relationship becomes a `removed` tombstone without
   * resource password, extra or role, its tags and extra data here go, and its sessions here stay
   * (refused, without refresh records) until a rejoin revokes them. Memberships are kept (they may be paid for); a later sign-in or registration rejoins.
   */
  async removeProfile(userId: number, resourceId: number, requestId: string): Promise<MemberAccessOutcome> {
    const outcome = await this.leaveActive({ userId, resourceId, requestId }, 'removed', ACCESS_EVENTS.profileRemoved);
    await Promise.all(this.deps.memberData.map((data) => data.removeMemberData(userId, resourceId)));
    return outcome;
  }

  /**
   * Operator: a locked or suspended relationship becomes active again. The member's sessions here
   * (all from before) are revoked: the member signs in afresh.
   */
  async restore(resourceId: number, member: MemberRef, requestId: string): Promise<MemberAccessOutcome> {
    const userId = member.userId || (await this.userIdByEmail(member.email));
    const relationship = userId ? await this.deps.relationships.find(resourceId, userId) : null;
    if (!relationship || relationship.status === 'removed') throw userNotExist();
    const previousStatus = relationship.status;
    if (previousStatus !== 'locked' && previousStatus !== 'suspended') {
      throw relationshipNotBlocked(previousStatus);
    }
    const applied = await this.deps.changes.apply({
      userId,
      resourceId,
      requestId,
      from: [previousStatus],
      to: 'active',
      event: ACCESS_EVENTS.restored,
      details: { previous_status: previousStatus },
    });
    if (!applied) throw relationshipChanged();
    return { userId, resourceId, previousStatus, status: 'active', revokedSessionIds: applied.revokedSessionIds };
  }

  private async leaveActive(target: ChangeTarget, to: RelationshipState, event: MoveEvent): Promise<MemberAccessOutcome> {
    const { userId, resourceId } = target;
    const relationship = await this.deps.relationships.find(resourceId, userId);
    if (!relationship || relationship.status === 'removed') throw notResourceMember();
    const applied = await this.deps.changes.apply({ ...target, from: ['active'], to, event });
    if (!applied) throw authAccessFail();
    return { userId, resourceId, previousStatus: 'active', status: to, revokedSessionIds: [] };
  }

  private async userIdByEmail(email: string): Promise<number> {
    const normalized = email.trim().toLowerCase();
    // Only the ID is used; the credentials this read returns go no further.
    return normalized ? ((await this.deps.users.findIdByEmail(normalized)) ?? 0) : 0;
  }
}
