import { createHash } from 'node:crypto';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, anySessionCredentials, anyToken, useStack } from './support.js';

/** Refresh, code exchange, logout and cleanup-refresh (document 1, sections B and C). */
describe('session operations', () => {
  // A short reuse window (docs/adr/0086), so that a use after it needs no long wait.
  const REUSE_WINDOW_MS = 2000;
  const s = useStack({ env: { REFRESH_REUSE_INTERVAL_SECONDS: String(REUSE_WINDOW_MS / 1000) } });
  const pastTheWindow = () => new Promise((resolve) => setTimeout(resolve, REUSE_WINDOW_MS + 250));

  const signIn = async (tenant: Tenant, extra: Record<string, unknown> = {}) => {
    const member = await createMember(s.stack, tenant);
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password, ...extra },
    });
    expect(response.status).toBe(200);
    return { member, body: response.body };
  };
  const refresh = (tenant: Tenant, body: Record<string, unknown>, form = false) =>
    s.api('/authorization/refresh', {
      headers: { resource: tenant.publicKey },
      ...(form ? { form: body as Record<string, string> } : { json: body }),
    });
  const userWith = (tenant: Tenant, token: string) => s.api('/user', { headers: { resource: tenant.publicKey, token } });

  describe('POST /authorization/refresh', () => {
    it('needs the resource header in its default mode (document 1, B): 404 resource_not_exists, the record kept', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      for (const responseType of [undefined, 'code_and_token']) {
        const response = await s.api('/authorization/refresh', {
          json: { refresh_token: body['refresh_token'], ...(responseType ? { response_type: responseType } : {}) },
        });
        expect(response.status).toBe(404);
        expect(response.body).toEqual({ error: 'resource_not_exists', error_description: expect.any(String), req_guid: anyRequestId });
      }
      // Nothing was consumed: the record still refreshes once the resource is named.
      const named = await refresh(tenant, { refresh_token: body['refresh_token'] });
      expect(named.status).toBe(200);
      expect(named.body['code']).toEqual(anyToken);
    });

    it('refreshes without a resource in token mode, which does not need one', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const response = await s.api('/authorization/refresh', { json: { refresh_token: body['refresh_token'], response_type: 'token' } });
      expect(response.status).toBe(200);
      expect(response.body['session_id']).toBe(body['session_id']);
    });

    it('returns new credentials and a code by default (code_and_token), no profile', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const response = await refresh(tenant, { refresh_token: body['refresh_token'] });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...anySessionCredentials(),
        session_id: body['session_id'],
        code: anyToken,
      });
      expect(response.body['token']).not.toBe(body['token']);
      expect(response.body['refresh_token']).not.toBe(body['refresh_token']);
      // The new token works; the old one keeps its own term (requests in flight must not fail).
      expect((await userWith(tenant, response.body['token'] as string)).status).toBe(200);
      expect((await userWith(tenant, body['token'] as string)).status).toBe(200);
      // Its code carries no destination and exchanges without one.
      const exchanged = await s.api('/oauth/token', { headers: { resource: tenant.publicKey }, json: { code: response.body['code'] } });
      expect(exchanged.status).toBe(200);
      expect(exchanged.body['session_id']).toBe(body['session_id']);
    });

    it('keeps each token to its own term: an old token expires on time although the session was extended', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const refreshed = await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' });
      // Tokens are stored as their SHA-256; expire the first one only.
      const oldHash = createHash('sha256')
        .update(body['token'] as string)
        .digest('hex');
      await s
        .db('identity')
        .collection('session_tokens')
        .updateOne({ _id: oldHash as never }, { $set: { expires_at: new Date(Date.now() - 1000) } });
      expect((await userWith(tenant, body['token'] as string)).body['error']).toBe('token_expired');
      expect((await userWith(tenant, refreshed.body['token'] as string)).status).toBe(200);
    });

    /** The family's session token and its newest refresh record both answer token_compromised. */
    const expectFamilyCompromised = async (tenant: Tenant, tokens: Record<string, unknown>) => {
      const user = await userWith(tenant, tokens['token'] as string);
      expect(user.status).toBe(401);
      expect(user.body['error']).toBe('token_compromised');
      expect((await refresh(tenant, { refresh_token: tokens['refresh_token'] })).body['error']).toBe('token_compromised');
    };
    const compromisedBody = { error: 'token_compromised', error_description: expect.any(String), req_guid: anyRequestId };

    it('consumes the record: a retry within the reuse window is answered, a replay after it compromises the family', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const first = await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' });
      expect(first.status).toBe(200);
      // Within the window a second use is a retry; the same record later is a thief's.
      expect((await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' })).body).toEqual(first.body);
      await pastTheWindow();
      const replay = await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' });
      expect(replay.status).toBe(401);
      expect(replay.body).toEqual(compromisedBody);
      await expectFamilyCompromised(tenant, first.body);
    });

    it('answers a second use within the reuse window with the same rotated credentials', async () => {
      const tenant = await createTenant(s.stack);
      const { member, body } = await signIn(tenant);
      const first = await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' });
      const second = await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' });
      expect(first.status).toBe(200);
      expect(second.status).toBe(200);
      expect(second.body).toEqual(first.body);
      // No new session, and the family is sound: the token works, the new record rotates once.
      expect(await s.db('identity').collection('sessions').countDocuments({ user_id: member.id })).toBe(1);
      expect((await userWith(tenant, first.body['token'] as string)).status).toBe(200);
      expect((await refresh(tenant, { refresh_token: first.body['refresh_token'], response_type: 'token' })).status).toBe(200);
      // The answer is kept sealed, never in the clear.
      const stored = JSON.stringify(await s.db('identity').collection('secret_uses').find().toArray());
      expect(stored).not.toContain(first.body['token']);
      expect(stored).not.toContain(first.body['refresh_token']);
    });

    it('answers parallel uses of one record with the same credentials, one session, nothing compromised', async () => {
      const tenant = await createTenant(s.stack);
      const { member, body } = await signIn(tenant);
      const results = await Promise.all(
        [1, 2, 3].map(() => refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' })),
      );
      expect(results.map((result) => result.status)).toEqual([200, 200, 200]);
      expect(results[1]!.body).toEqual(results[0]!.body);
      expect(results[2]!.body).toEqual(results[0]!.body);
      const sessions = await s.db('identity').collection('sessions').find({ user_id: member.id }).toArray();
      expect(sessions.map((session) => session['compromised_at'])).toEqual([null]);
      // The answer's expiry is its token's own; a refresh writes no session (docs/adr/0204).
      const tokenHash = createHash('sha256')
        .update(results[0]!.body['token'] as string)
        .digest('hex');
      const stored = await s
        .db('identity')
        .collection('session_tokens')
        .findOne({ _id: tokenHash as never });
      expect(Math.floor((stored?.['expires_at'] as Date).getTime() / 1000)).toBe(results[0]!.body['expires']);
      expect((await userWith(tenant, results[0]!.body['token'] as string)).status).toBe(200);
    });

    it('refuses a consumed record whatever the flag: reusable_refresh true compromises the family', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const first = await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'token' });
      expect(first.status).toBe(200);
      for (const attempt of [1, 2]) {
        const replay = await refresh(tenant, { refresh_token: body['refresh_token'], reusable_refresh: true, response_type: 'token' });
        expect([attempt, replay.status, replay.body]).toEqual([attempt, 401, compromisedBody]);
      }
      await expectFamilyCompromised(tenant, first.body);
    });

    it('keeps the record only for the JSON boolean true (a form string does not count)', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const kept = await refresh(tenant, { refresh_token: body['refresh_token'], reusable_refresh: true, response_type: 'token' });
      expect(kept.status).toBe(200);
      expect(kept.body['refresh_token']).toBe(body['refresh_token']);
      const keptAgain = await refresh(tenant, { refresh_token: body['refresh_token'], reusable_refresh: true, response_type: 'token' });
      expect(keptAgain.status).toBe(200);
      expect(keptAgain.body['token']).not.toBe(kept.body['token']);
      const again = await refresh(tenant, { refresh_token: body['refresh_token'], reusable_refresh: 'true', response_type: 'token' }, true);
      expect(again.status).toBe(200);
      expect(again.body['refresh_token']).not.toBe(body['refresh_token']);
      await pastTheWindow();
      expect((await refresh(tenant, { refresh_token: body['refresh_token'] })).body['error']).toBe('token_compromised');
    });

    it('adds has-resource-password when asked (truthy form value)', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const response = await refresh(
        tenant,
        { refresh_token: body['refresh_token'] as string, response_type: 'token', with_has_resource_password: '1' },
        true,
      );
      expect(response.body['has-resource-password']).toBe(false);
      expect(response.body).not.toHaveProperty('idp-token');
    });

    it.each([
      [{}, 409, 'invalid_refresh_token'],
      [{ refresh_token: '   ' }, 409, 'invalid_refresh_token'],
      [{ refresh_token: ['x'] }, 409, 'invalid_refresh_token'],
      [{ refresh_token: 'unknown-refresh-token' }, 401, 'refresh_failed'],
    ])('%j → %i %s', async (input, status, error) => {
      const tenant = await createTenant(s.stack);
      const response = await refresh(tenant, input);
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ error, error_description: expect.any(String), req_guid: anyRequestId });
    });

    it('refuses a bad response_type and a foreign redirect_uri', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const { body } = await signIn(tenant);
      expect((await refresh(tenant, { refresh_token: body['refresh_token'], response_type: 'id_token' })).body['error']).toBe(
        'invalid_response_type',
      );
      expect((await refresh(tenant, { refresh_token: body['refresh_token'], redirect_uri: 'https://evil.example/' })).body['error']).toBe(
        'invalid_redirect_uri',
      );
    });

    it('refuses a refresh record of another resource', async () => {
      const tenant = await createTenant(s.stack);
      const other = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      expect((await refresh(other, { refresh_token: body['refresh_token'] })).body['error']).toBe('refresh_failed');
    });
  });

  describe('POST /oauth/token', () => {
    it('exchanges a sign-in code once for credentials bound to the same destination', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const { body } = await signIn(tenant, { response_type: 'code', redirect_uri: 'https://news.example/cb' });
      const exchange = (redirect_uri: string) =>
        s.api('/oauth/token', { headers: { resource: tenant.publicKey }, form: { code: body['code'] as string, redirect_uri } });
      expect((await exchange('https://news.example/other')).body['error']).toBe('invalid_grant');
      const response = await exchange('https://news.example/cb');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        ...anySessionCredentials(),
        session_id: body['session_id'],
      });
      expect((await userWith(tenant, response.body['token'] as string)).status).toBe(200);
      const reuse = await exchange('https://news.example/cb');
      expect(reuse.status).toBe(400);
      expect(reuse.body).toEqual({ error: 'invalid_grant', error_description: expect.any(String), req_guid: anyRequestId });
    });

    it('refuses a missing code and a code of another resource', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const other = await createTenant(s.stack);
      expect((await s.api('/oauth/token', { headers: { resource: tenant.publicKey }, json: {} })).body['error']).toBe('invalid_code');
      const { body } = await signIn(tenant, { response_type: 'code', redirect_uri: 'https://news.example/cb' });
      const foreign = await s.api('/oauth/token', {
        headers: { resource: other.publicKey },
        json: { code: body['code'], redirect_uri: 'https://news.example/cb' },
      });
      expect(foreign.body['error']).toBe('invalid_grant');
    });
  });

  describe('GET /logout and POST /cleanup-refresh', () => {
    it('logs out: the token then fails the shared checks and the refresh record is gone', async () => {
      const tenant = await createTenant(s.stack);
      const { body } = await signIn(tenant);
      const response = await s.api('/logout', { headers: { resource: tenant.publicKey, token: body['token'] as string } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ result: true });
      expect((await userWith(tenant, body['token'] as string)).body['error']).toBe('token_expired');
      expect((await refresh(tenant, { refresh_token: body['refresh_token'] })).body['error']).toBe('refresh_failed');
    });

    it('removes every refresh record of the user and keeps the sessions', async () => {
      const tenant = await createTenant(s.stack);
      const { member, body } = await signIn(tenant);
      const second = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: member.email, password: member.password },
      });
      const response = await s.api('/cleanup-refresh', {
        method: 'POST',
        headers: { resource: tenant.publicKey, token: body['token'] as string },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ msg: { result: true, msg: 'Refresh tokens removed' } });
      expect(await s.db('identity').collection('refresh_tokens').countDocuments({ user_id: member.id })).toBe(0);
      expect((await userWith(tenant, second.body['token'] as string)).status).toBe(200);
      expect((await refresh(tenant, { refresh_token: second.body['refresh_token'] })).body['error']).toBe('refresh_failed');
    });

    it('answers 404 user_not_exist without a resolved user', async () => {
      const response = await s.api('/cleanup-refresh', { method: 'POST' });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'user_not_exist', error_description: 'User does not exist', req_guid: anyRequestId });
    });
  });
});
