/** Domain events of relationship-state changes (docs/adr/0072); payloads carry IDs and labels only. */
export const ACCESS_EVENTS = {
  suspended: 'member_suspended',
  profileRemoved: 'member_profile_removed',
  locked: 'member_access_locked',
  restored: 'member_access_restored',
  sessionsRevoked: 'member_sessions_revoked',
} as const;

/** The events of a relationship move (AccessChanges); sessions revoked is the lock policy's own. */
export type MoveEvent = Exclude<(typeof ACCESS_EVENTS)[keyof typeof ACCESS_EVENTS], 'member_sessions_revoked'>;

/** Why the lock policy acted. */
export type LockReason = 'device_limit' | 'compromised_session';
