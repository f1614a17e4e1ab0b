/**
 * The lock policy of a resource, read from its `settings` (accounts service; docs/adr/0070).
 *
 * - `device_limit`: the most live sessions a member may hold in the resource; absent, 0 or not
 *   a positive integer means no limit.
 * - `device_limit_action`: what a sign-in beyond the limit does: `revoke_oldest` (default; the
 *   oldest sessions are revoked so that the new one fits) or `lock` (the relationship locks).
 * - `compromised_session_action`: what a sign-in does while the member has a compromised session
 *   in the resource not handled yet: `none` (default), `revoke_sessions` (every session of the
 *   member there is revoked, the sign-in proceeds) or `lock` (the relationship locks).
 *
 * An unknown action falls back to its default, so that a typo in a setting never stops every
 * member of a resource from signing in.
 */
export type DeviceLimitAction = 'revoke_oldest' | 'lock';
export type CompromisedSessionAction = 'none' | 'revoke_sessions' | 'lock';

export interface LockPolicySettings {
  /** null: no limit. */
  deviceLimit: number | null;
  deviceLimitAction: DeviceLimitAction;
  compromisedSessionAction: CompromisedSessionAction;
}

const DEVICE_LIMIT_ACTIONS: readonly DeviceLimitAction[] = ['revoke_oldest', 'lock'];
const COMPROMISED_SESSION_ACTIONS: readonly CompromisedSessionAction[] = ['none', 'revoke_sessions', 'lock'];

const oneOf = <T extends string>(allowed: readonly T[], value: unknown, fallback: T): T =>
  allowed.includes(value as T) ? (value as T) : fallback;

export function readLockPolicy(settings: Record<string, unknown> | undefined): LockPolicySettings {
  const limit = settings?.['device_limit'];
  return {
    deviceLimit: typeof limit === 'number' && Number.isSafeInteger(limit) && limit > 0 ? limit : null,
    deviceLimitAction: oneOf(DEVICE_LIMIT_ACTIONS, settings?.['device_limit_action'], 'revoke_oldest'),
    compromisedSessionAction: oneOf(COMPROMISED_SESSION_ACTIONS, settings?.['compromised_session_action'], 'none'),
  };
}
