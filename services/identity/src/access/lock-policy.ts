import type { EventPublisher } from '@masthead/core/events';
import type { Resource } from '@masthead/proto/accounts';
import type { AccessAnnouncer } from '../sessions/access-announcer.js';
import type { AccessChanges } from './access-changes.js';
import { ACCESS_EVENTS, type LockReason } from './access-events.js';
import { readLockPolicy } from './lock-policy-settings.js';
import type { MemberSessions } from './member-sessions.js';

/** Where a sign-in comes from, recorded with a lock (login activity). */
export interface SignInActivity {
  requestId: string;
  ip: string | null;
  userAgent: string | null;
  sourceType: string | null;
}

interface RevocationCause {
  resourceId: number;
  userId: number;
  reason: LockReason;
  requestId: string;
}

interface LockPolicyDeps {
  sessions: MemberSessions;
  changes: AccessChanges;
  events: EventPublisher;
  announcer: AccessAnnouncer;
}

/**
 * The lock policy of the state table (document 1, States and transitions; docs/adr/0070),
 * applied at sign-in of a member whose relationship is active, in two steps around the new
 * session: `admit` before it is issued, `trimDevices` after.
 */
export class LockPolicy {
  constructor(private readonly deps: LockPolicyDeps) {}

  /**
   * Applies the compromised-session rule and a device limit whose action is `lock`. False when
   * the relationship is now locked: the caller refuses the sign-in and issues no session.
   */
  async admit(resource: Resource, userId: number, activity: SignInActivity): Promise<boolean> {
    const policy = readLockPolicy(resource.settings);
    const { sessions } = this.deps;
    if (policy.compromisedSessionAction !== 'none' && (await sessions.hasUnhandledCompromise(userId, resource.id))) {
      if (policy.compromisedSessionAction === 'lock') return this.lock(resource.id, userId, 'compromised_session', activity);
      const revoked = await sessions.revokeAll(userId, resource.id);
      await this.revoked({ resourceId: resource.id, userId, reason: 'compromised_session', requestId: activity.requestId }, revoked);
    }
    if (policy.deviceLimit !== null && policy.deviceLimitAction === 'lock') {
      // The new session would be one more than the limit allows.
      const live = await sessions.live(userId, resource.id);
      if (live.length >= policy.deviceLimit) return this.lock(resource.id, userId, 'device_limit', activity);
    }
    return true;
  }

  /**
   * After the new session is issued, `revoke_oldest` revokes the member's oldest sessions beyond
   * the limit. Counting after the insert makes parallel sign-ins converge on the limit: each
   * revokes the same oldest sessions.
   */
  async trimDevices(resource: Resource, userId: number, requestId: string): Promise<void> {
    const policy = readLockPolicy(resource.settings);
    if (policy.deviceLimit === null || policy.deviceLimitAction !== 'revoke_oldest') return;
    const live = await this.deps.sessions.live(userId, resource.id);
    const oldest = live.slice(0, Math.max(0, live.length - policy.deviceLimit)).map((session) => session._id);
    if (oldest.length === 0) return;
    const revoked = await this.deps.sessions.revoke(oldest);
    await this.revoked({ resourceId: resource.id, userId, reason: 'device_limit', requestId }, revoked);
  }

  /**
   * Locks the relationship: its sessions in the resource stay (their tokens answer
   * `auth_access_fail`) without refresh records. Always "not admitted".
   */
  private async lock(resourceId: number, userId: number, reason: LockReason, activity: SignInActivity): Promise<false> {
    await this.deps.changes.apply({
      userId,
      resourceId,
      requestId: activity.requestId,
      from: ['active'],
      to: 'locked',
      event: ACCESS_EVENTS.locked,
      details: { reason, ip: activity.ip, user_agent: activity.userAgent, source_type: activity.sourceType },
    });
    return false;
  }

  private async revoked(cause: RevocationCause, sessionIds: number[]): Promise<void> {
    if (sessionIds.length === 0) return;
    this.deps.announcer.memberChanged(cause.userId, cause.resourceId, 'sessions_revoked');
    await this.deps.events.publish({
      name: ACCESS_EVENTS.sessionsRevoked,
      resourceId: cause.resourceId,
      payload: { user_id: cause.userId, reason: cause.reason, session_ids: sessionIds, request_id: cause.requestId },
    });
  }
}
