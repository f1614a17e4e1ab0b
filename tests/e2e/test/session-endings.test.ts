import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, useStack } from './support.js';

/**
 * A session ended by logout or by a replayed refresh record stays ended although refreshes of it
 * were running at the time: FerretDB rewrites a whole document per update, so a refresh that
 * updated the session could write the ending back out (docs/adr/0204). Enough rounds that the
 * version whose refresh moved the session's expiry failed them.
 */
describe('session endings racing refreshes', () => {
  const ROUNDS = 10;
  const REFRESHES = 12;
  const s = useStack();

  const ended = (error: string, description: string) => ({ error, error_description: description, req_guid: anyRequestId });
  const TOKEN_EXPIRED = ended('token_expired', 'Session token has expired');
  const COMPROMISED = ended('token_compromised', 'Session token is compromised');
  const REFRESH_FAILED = ended('refresh_failed', 'Refresh token is invalid or expired');

  const signIn = async (tenant: Tenant) => {
    const member = await createMember(s.stack, tenant);
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(response.status).toBe(200);
    return { token: response.body['token'] as string, refreshToken: response.body['refresh_token'] as string };
  };
  const refresh = (tenant: Tenant, body: Record<string, unknown>) =>
    s.api('/authorization/refresh', { headers: { resource: tenant.publicKey }, json: { response_type: 'token', ...body } });

  type Answer = Awaited<ReturnType<typeof refresh>>;

  /**
   * Refreshes of a kept record (each one rotates the session) with `end` started among them:
   * the ending's answer, and the session tokens and refresh tokens of the refreshes answered.
   */
  const racing = async (tenant: Tenant, refreshToken: string, end: () => Promise<Answer>) => {
    const refreshes = () =>
      Array.from({ length: REFRESHES / 2 }, () => refresh(tenant, { refresh_token: refreshToken, reusable_refresh: true }));
    const before = refreshes();
    const ending = end();
    const results = await Promise.all([...before, ...refreshes()]);
    const answered = results.filter((result) => result.status === 200);
    const issued = answered.map((result) => result.body['token'] as string);
    const refreshTokens = [...new Set(answered.map((result) => result.body['refresh_token'] as string))];
    return { ending: await ending, issued, refreshTokens };
  };

  /** Every token answers the shared checks with `tokenAnswer`, every refresh token with `refreshAnswer`. */
  const expectEnded = async (tenant: Tenant, tokens: string[], refreshTokens: string[], tokenAnswer: object, refreshAnswer: object) => {
    for (const token of tokens) {
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect([response.status, response.body]).toEqual([401, tokenAnswer]);
    }
    for (const refreshToken of refreshTokens) {
      const response = await refresh(tenant, { refresh_token: refreshToken });
      expect([response.status, response.body]).toEqual([401, refreshAnswer]);
    }
  };

  it('a logout: the session token and every token issued meanwhile answer token_expired, the record refresh_failed', async () => {
    const tenant = await createTenant(s.stack);
    for (let round = 0; round < ROUNDS; round++) {
      const signedIn = await signIn(tenant);
      const logout = () => s.api('/logout', { headers: { resource: tenant.publicKey, token: signedIn.token } });
      const { ending, issued, refreshTokens } = await racing(tenant, signedIn.refreshToken, logout);
      expect([ending.status, ending.body]).toEqual([200, { result: true }]);
      await expectEnded(tenant, [signedIn.token, ...issued], [signedIn.refreshToken, ...refreshTokens], TOKEN_EXPIRED, REFRESH_FAILED);
    }
  });

  it('a replayed record: every token and refresh record of the session answers token_compromised', async () => {
    const tenant = await createTenant(s.stack);
    for (let round = 0; round < ROUNDS; round++) {
      const signedIn = await signIn(tenant);
      const first = await refresh(tenant, { refresh_token: signedIn.refreshToken });
      expect(first.status).toBe(200);
      const current = first.body['refresh_token'] as string;
      // Asking to keep a consumed record compromises the family at once (docs/adr/0086).
      const replay = () => refresh(tenant, { refresh_token: signedIn.refreshToken, reusable_refresh: true });
      const { ending, issued, refreshTokens } = await racing(tenant, current, replay);
      expect([ending.status, ending.body]).toEqual([401, COMPROMISED]);
      const tokens = [signedIn.token, first.body['token'] as string, ...issued];
      await expectEnded(tenant, tokens, [signedIn.refreshToken, current, ...refreshTokens], COMPROMISED, COMPROMISED);
    }
  });
});
