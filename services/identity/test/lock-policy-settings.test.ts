import { describe, expect, it } from 'vitest';
import { readLockPolicy } from '../src/access/lock-policy-settings.js';

/** The resource settings of the lock policy (docs/adr/0070). */
describe('readLockPolicy', () => {
  it('defaults to no limit, revoke_oldest and no compromised-session action', () => {
    const defaults = { deviceLimit: null, deviceLimitAction: 'revoke_oldest', compromisedSessionAction: 'none' };
    expect(readLockPolicy(undefined)).toEqual(defaults);
    expect(readLockPolicy({})).toEqual(defaults);
  });

  it('reads every key', () => {
    expect(readLockPolicy({ device_limit: 3, device_limit_action: 'lock', compromised_session_action: 'revoke_sessions' })).toEqual({
      deviceLimit: 3,
      deviceLimitAction: 'lock',
      compromisedSessionAction: 'revoke_sessions',
    });
  });

  it.each([0, -1, 2.5, '2', null, true])('treats device_limit %j as no limit', (value) => {
    expect(readLockPolicy({ device_limit: value }).deviceLimit).toBeNull();
  });

  it('falls back to the default for an unknown action, so that a typo never stops sign-in', () => {
    expect(readLockPolicy({ device_limit_action: 'LOCK', compromised_session_action: 'ban' })).toMatchObject({
      deviceLimitAction: 'revoke_oldest',
      compromisedSessionAction: 'none',
    });
  });
});
