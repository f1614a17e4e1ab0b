import type { EventPublisher } from '@masthead/core/events';

/** Why a member's access changed; carried in the event for operators reading the stream. */
export type AccessChangeReason =
  | 'logout'
  | 'compromised'
  | 'member_updated'
  | 'password_changed'
  | 'profile_updated'
  // Relationship-state changes and the lock policy (docs/adr/0070, 0071).
  | 'suspended'
  | 'locked'
  | 'profile_removed'
  | 'restored'
  | 'sessions_revoked';

/** Reasons that end sessions or block the member: its entitlement tokens from before are stale. */
const ACCESS_ENDING_REASONS: ReadonlySet<AccessChangeReason> = new Set([
  'suspended',
  'locked',
  'profile_removed',
  'restored',
  'sessions_revoked',
  'password_changed',
]);

/** Told where access ends: the entitlement revocation lists (docs/adr/0248). */
export interface AccessEndings {
  sessionEnded(session: { _id: number; resource_id: number }): void;
  /** `resourceId` null: every resource of the member. */
  memberChanged(userId: number, resourceId: number | null): void;
}

/**
 * Announces `member_access_changed`: the gateways cache session checks briefly (ADR 0042) and
 * must drop a member's entries the moment its sessions, state or projection change. With a
 * session ID only that session's entries go; without, every entry of the user. Endings of access
 * are also told to `endings`.
 */
export class AccessAnnouncer {
  constructor(
    private readonly events: EventPublisher,
    private readonly endings?: AccessEndings,
  ) {}

  sessionEnded(session: { _id: number; user_id: number; resource_id: number }, reason: AccessChangeReason): void {
    this.announce(session.user_id, session._id, session.resource_id || null, reason);
    this.endings?.sessionEnded(session);
  }

  memberChanged(userId: number, resourceId: number | null, reason: AccessChangeReason): void {
    this.announce(userId, null, resourceId, reason);
    if (ACCESS_ENDING_REASONS.has(reason)) this.endings?.memberChanged(userId, resourceId);
  }

  /** A notification, not a durable event: a lost one costs a cache one lifetime (ADR 0199). */
  private announce(userId: number, sessionId: number | null, resourceId: number | null, reason: AccessChangeReason): void {
    this.events.notify({ name: 'member_access_changed', resourceId, payload: { user_id: userId, session_id: sessionId, reason } });
  }
}
