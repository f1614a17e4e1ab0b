/** Domain events of relationship-state changes (docs/adr/0072); payloads carry IDs and labels only. */
export const ACCESS_EVENTS = {
  suspended: 'member_suspended',
  profileRemoved: 'member_profile_removed',
  locked: 'member_access_locked',
  restored: 'member_access_restored',
  sessionsRevoked: 'member_sessions_revoked',
} as const;

/** Why the lock policy acted. */
export type LockReason = 'device_limit' | 'compromised_session';
