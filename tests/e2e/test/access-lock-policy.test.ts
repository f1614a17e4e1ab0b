import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { accessKit, authorizationFail, tokenExpired, type Json } from './access-support.js';
import { useStack } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The lock policy of the state table at POST /authorization (docs/adr/0070). */
describe('member access: the lock policy', () => {
  const s = useStack();
  const kit = accessKit(s);

  /**
   * Replays a consumed refresh record: the session family becomes compromised (ADR 0004). Asking
   * to keep a consumed record is a replay at once, without waiting out the reuse window (ADR 0086).
   */
  const compromise = async (tenant: Parameters<typeof kit.call>[0], refreshToken: string) => {
    const refresh = (body: Json) => s.api('/authorization/refresh', { headers: { resource: tenant.publicKey }, json: body });
    expect((await refresh({ refresh_token: refreshToken, response_type: 'token' })).status).toBe(200);
    const replay = await refresh({ refresh_token: refreshToken, response_type: 'token', reusable_refresh: true });
    expect(replay.body['error']).toBe('token_compromised');
  };

  /** A member of two resources with two sessions here, the first of them compromised. */
  const withCompromisedSession = async (compromisedSessionAction: string) => {
    const arranged = await kit.signedInAtBoth({ settings: { compromised_session_action: compromisedSessionAction } });
    const { home, here: stolen, member } = arranged;
    const other = await kit.signedIn(home, member);
    await compromise(home, stolen.refreshToken);
    return { ...arranged, stolen, other };
  };

  describe('device_limit with device_limit_action lock', () => {
    it('locks the relationship when a sign-in would exceed the limit; only this resource', async () => {
      const { home, elsewhere, member } = await kit.memberOfTwo({ settings: { device_limit: 2, device_limit_action: 'lock' } });
      const first = await kit.signedIn(home, member);
      const second = await kit.signedIn(home, member);
      const there = await kit.signedIn(elsewhere, member);
      const locked = await kit.listen('member_access_locked');

      const userAgent = `ua-${randomUUID()}`;
      const third = await kit.signIn(home, member, userAgent);
      expect(third.status).toBe(401);
      expect(third.body).toEqual(authorizationFail);
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'locked' });
      // Other sessions are affected: kept but refused, refresh records gone.
      for (const session of [first, second]) await kit.expectBlockedSession(home, session);
      await kit.expectForeign(home, there.token);
      expect((await kit.signIn(home, member)).body).toEqual(authorizationFail);
      await kit.expectWorking(elsewhere, there.token);

      const event = await locked(third);
      expect(event).toEqual(
        kit.identityEvent('member_access_locked', home.resourceId, {
          user_id: member.id,
          reason: 'device_limit',
          ip: expect.any(String),
          user_agent: userAgent,
          source_type: null,
          request_id: third.headers.get('x-request-id'),
        }),
      );

      // The operator lifts the lock with the admin CLI; the member signs in again within the limit.
      const { stdout } = await run(
        process.execPath,
        ['tools/admin/dist/cli.js', 'restore-member-access', '--resource-id', String(home.resourceId), '--email', member.email],
        {
          cwd: repoRoot,
          env: { ...process.env, ...s.stack.env },
        },
      );
      expect(JSON.parse(stdout)).toEqual({ user_id: member.id, resource_id: home.resourceId, previous_status: 'locked', status: 'active' });
      // Tokens from before the lock do not come back to life; a fresh sign-in works.
      for (const session of [first, second]) await kit.expectRevokedSession(home, session);
      const back = await kit.signedIn(home, member);
      await kit.expectWorking(home, back.token);
    });

    it('counts only live sessions of this resource', async () => {
      const { home, elsewhere, member } = await kit.memberOfTwo({ settings: { device_limit: 1, device_limit_action: 'lock' } });
      await kit.signedIn(elsewhere, member);
      await kit.signedIn(elsewhere, member);
      const first = await kit.signedIn(home, member);
      // A session that ended (logout) is not a device any more.
      expect((await kit.call(home, first.token, '/logout')).status).toBe(200);
      const second = await kit.signedIn(home, member);
      await kit.expectWorking(home, second.token);
    });
  });

  describe('device_limit with the default action revoke_oldest', () => {
    it('revokes the oldest sessions so that the new one fits; the relationship stays active', async () => {
      const { home, member } = await kit.memberOfTwo({ settings: { device_limit: 2 } });
      const first = await kit.signedIn(home, member);
      const second = await kit.signedIn(home, member);
      const revoked = await kit.listen('member_sessions_revoked');

      const third = await kit.signIn(home, member);
      expect(third.status).toBe(200);
      expect((await kit.call(home, first.token, '/user')).body).toEqual(tokenExpired);
      expect(await kit.refreshRecordsOf(first.sessionId)).toBe(0);
      await kit.expectWorking(home, second.token);
      await kit.expectWorking(home, third.body['token'] as string);
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'active' });
      const event = await revoked(third);
      expect(event['payload']).toEqual({
        user_id: member.id,
        reason: 'device_limit',
        session_ids: [first.sessionId],
        request_id: third.headers.get('x-request-id'),
      });
    });

    it('falls back to revoke_oldest for an unknown action and ignores a limit that is not a positive integer', async () => {
      const odd = await kit.memberOfTwo({ settings: { device_limit: 1, device_limit_action: 'shout' } });
      const first = await kit.signedIn(odd.home, odd.member);
      await kit.signedIn(odd.home, odd.member);
      expect((await kit.call(odd.home, first.token, '/user')).body).toEqual(tokenExpired);

      const unlimited = await kit.memberOfTwo({ settings: { device_limit: '1', device_limit_action: 'lock' } });
      const tokens = [await kit.signedIn(unlimited.home, unlimited.member), await kit.signedIn(unlimited.home, unlimited.member)];
      for (const { token } of tokens) await kit.expectWorking(unlimited.home, token);
    });
  });

  describe('compromised_session_action', () => {
    it('lock: a sign-in while a compromised session is unhandled locks the relationship, once', async () => {
      const { home, elsewhere, member, stolen, other, there } = await withCompromisedSession('lock');
      const locked = await kit.listen('member_access_locked');

      const userAgent = `ua-${randomUUID()}`;
      const refused = await kit.signIn(home, member, userAgent);
      expect(refused.body).toEqual(authorizationFail);
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'locked' });
      await kit.expectBlockedSession(home, other);
      await kit.expectForeign(home, there.token);
      await kit.expectWorking(elsewhere, there.token);
      const event = await locked(refused);
      expect(event['payload']).toEqual({
        user_id: member.id,
        reason: 'compromised_session',
        ip: expect.any(String),
        user_agent: userAgent,
        source_type: null,
        request_id: refused.headers.get('x-request-id'),
      });

      // Handled: the operator's restore revokes the sessions from before (the compromised one
      // included), and the same compromise does not lock again.
      const restored = await kit.operator().restoreMemberAccess({ resourceId: home.resourceId, userId: member.id, email: '' });
      expect(restored.revokedSessionIds).toEqual([stolen.sessionId, other.sessionId]);
      await kit.expectRevokedSession(home, other);
      await kit.expectWorking(home, (await kit.signedIn(home, member)).token);
    });

    it('revoke_sessions: every session here is revoked once and the sign-in proceeds', async () => {
      const { home, elsewhere, member, stolen, other, there } = await withCompromisedSession('revoke_sessions');
      const revoked = await kit.listen('member_sessions_revoked');

      const fresh = await kit.signIn(home, member);
      expect(fresh.status).toBe(200);
      expect((await kit.call(home, other.token, '/user')).body).toEqual(tokenExpired);
      // A compromised token keeps answering token_compromised.
      expect((await kit.call(home, stolen.token, '/user')).body['error']).toBe('token_compromised');
      await kit.expectWorking(home, fresh.body['token'] as string);
      await kit.expectWorking(elsewhere, there.token);
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'active' });
      const event = await revoked(fresh);
      expect(event['payload']).toEqual({
        user_id: member.id,
        reason: 'compromised_session',
        session_ids: [stolen.sessionId, other.sessionId],
        request_id: fresh.headers.get('x-request-id'),
      });

      // Handled once: the next sign-in leaves the sessions alone.
      const next = await kit.signedIn(home, member);
      await kit.expectWorking(home, fresh.body['token'] as string);
      await kit.expectWorking(home, next.token);
    });

    it('none (the default): a compromised session changes nothing at sign-in', async () => {
      const { home, member, other } = await withCompromisedSession('none');
      await kit.expectWorking(home, (await kit.signedIn(home, member)).token);
      await kit.expectWorking(home, other.token);
      expect(await kit.relationshipOf(home, member.id)).toMatchObject({ status: 'active' });
    });
  });
});
