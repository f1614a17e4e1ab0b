import { randomUUID } from 'node:crypto';
import { createServiceClient } from '@masthead/core/grpc';
import { MemberAccessServiceService } from '@masthead/proto/identity/access';
import { createMember, createTenant, type Tenant, type TenantOptions } from '@masthead/testkit';
import { afterAll, expect } from 'vitest';
import { anyRequestId, collectEvents, eventually, type StackHandle } from './support.js';

export type Json = Record<string, unknown>;

/** The shared checks' answer for a blocked relationship (document 1, Errors). */
export const accessFail = { error: 'auth_access_fail', error_description: expect.any(String), req_guid: anyRequestId };
/** Sign-in's answer for a locked or suspended relationship (document 1, POST /authorization). */
export const authorizationFail = { error: 'authorization_fail', error_description: 'Incorrect email or password', req_guid: anyRequestId };
export const tokenExpired = { error: 'token_expired', error_description: expect.any(String), req_guid: anyRequestId };
export const refreshFailed = { error: 'refresh_failed', error_description: expect.any(String), req_guid: anyRequestId };

/**
 * Member operations of several areas (identity, catalog, accounts, and a route not built yet,
 * which still runs its shared checks first), each as `[label, path, request]`.
 */
export const MEMBER_OPERATIONS: ReadonlyArray<[string, string, { method?: string; query?: string; json?: Json }]> = [
  ['GET /user', '/user', {}],
  ['GET /user/plans', '/user/plans', { query: 'page=1' }],
  ['GET /user/plans/history', '/user/plans/history', { query: 'page=1' }],
  ['GET /resource', '/resource', {}],
  ['PUT /user', '/user', { method: 'PUT', json: { first_name: 'Blocked' } }],
  ['POST /cleanup-refresh', '/cleanup-refresh', { method: 'POST' }],
  ['POST /user/suspend', '/user/suspend', { method: 'POST' }],
  ['DELETE /user/profile', '/user/profile', { method: 'DELETE' }],
];

/** Arrangement and probes shared by the access test files. */
export function accessKit(s: StackHandle) {
  let access: ReturnType<typeof createServiceClient<typeof MemberAccessServiceService>> | undefined;
  afterAll(() => access?.close());
  /** The operator's MemberAccessService client (what the admin CLI calls). */
  const operator = () =>
    (access ??= createServiceClient(MemberAccessServiceService, s.stack.env['IDENTITY_ADDR']!, { defaultDeadlineMs: 10_000 }));

  /** One person who is a member of two resources: `home` (under test) and `elsewhere`. */
  const memberOfTwo = async (homeOptions: TenantOptions = {}) => {
    const home = await createTenant(s.stack, homeOptions);
    const elsewhere = await createTenant(s.stack);
    const member = await createMember(s.stack, home);
    await createMember(s.stack, elsewhere, { email: member.email, password: member.password });
    return { home, elsewhere, member };
  };

  /** POST /authorization with a user agent unique to this sign-in (it tells our events apart). */
  const signIn = (tenant: Tenant, member: { email: string; password: string }, userAgent = `ua-${randomUUID()}`) =>
    s.api('/authorization', {
      headers: { resource: tenant.publicKey, 'user-agent': userAgent },
      json: { email: member.email, password: member.password },
    });

  const signedIn = async (tenant: Tenant, member: { email: string; password: string }) => {
    const response = await signIn(tenant, member);
    expect(response.status).toBe(200);
    return {
      token: response.body['token'] as string,
      sessionId: response.body['session_id'] as number,
      refreshToken: response.body['refresh_token'] as string,
    };
  };

  /** `memberOfTwo`, signed in at both resources: `here` (home) and `there` (elsewhere). */
  const signedInAtBoth = async (homeOptions: TenantOptions = {}) => {
    const { home, elsewhere, member } = await memberOfTwo(homeOptions);
    return { home, elsewhere, member, here: await signedIn(home, member), there: await signedIn(elsewhere, member) };
  };

  const call = (tenant: Tenant, token: string, path: string, request: { method?: string; query?: string; json?: Json } = {}) =>
    s.api(path, { ...request, headers: { resource: tenant.publicKey, token } });

  /** Every member operation in `tenant` with `token` answers 401 auth_access_fail. */
  const expectBlocked = async (tenant: Tenant, token: string) => {
    for (const [label, path, request] of MEMBER_OPERATIONS) {
      const response = await call(tenant, token, path, request);
      expect({ label, status: response.status, body: response.body }).toEqual({ label, status: 401, body: accessFail });
    }
  };

  /**
   * A session of another resource is no token in `tenant` (docs/adr/0085): every member
   * operation answers it as it answers a caller without a token.
   */
  const expectForeign = async (tenant: Tenant, token: string) => {
    for (const [label, path, request] of MEMBER_OPERATIONS) {
      const withToken = await call(tenant, token, path, request);
      const without = await s.api(path, { ...request, headers: { resource: tenant.publicKey } });
      expect({ label, status: withToken.status, body: withToken.body }).toEqual({
        label,
        status: without.status,
        body: { ...(without.body as Json), req_guid: anyRequestId },
      });
    }
  };

  /** Signed-in credentials, as `signedIn` answers them. */
  type Credentials = Awaited<ReturnType<typeof signedIn>>;

  /**
   * A session of a blocked relationship (docs/adr/0071): kept (not revoked), every member
   * operation refused with auth_access_fail, its refresh records gone and their use refused.
   */
  const expectBlockedSession = async (tenant: Tenant, session: Credentials) => {
    await expectBlocked(tenant, session.token);
    expect((await sessionOf(session.sessionId))?.['revoked_at']).toBeNull();
    expect(await refreshRecordsOf(session.sessionId)).toBe(0);
    const renewed = await s.api('/authorization/refresh', {
      headers: { resource: tenant.publicKey },
      json: { refresh_token: session.refreshToken, response_type: 'token' },
    });
    expect({ status: renewed.status, body: renewed.body }).toEqual({ status: 401, body: refreshFailed });
  };

  /** A session revoked (a restore, a rejoin, the policy's revocations): its token answers token_expired. */
  const expectRevokedSession = async (tenant: Tenant, session: Credentials) => {
    expect((await call(tenant, session.token, '/user')).body).toEqual(tokenExpired);
    expect((await sessionOf(session.sessionId))?.['revoked_at']).toBeInstanceOf(Date);
    expect(await refreshRecordsOf(session.sessionId)).toBe(0);
  };

  /** The member keeps working in `tenant`: its profile and plans answer 200. */
  const expectWorking = async (tenant: Tenant, token: string) => {
    expect((await call(tenant, token, '/user')).status).toBe(200);
    expect((await call(tenant, token, '/user/plans', { query: 'page=1' })).status).toBe(200);
  };

  /**
   * Starts collecting events of `name`; the returned function waits for the one caused by a
   * request, by the `request_id` of its payload (other requests of the file make the same events).
   */
  const listen = async (name: string) => {
    const events = collectEvents(s.nats, name);
    await s.nats.flush();
    return (cause: { headers: Headers } | string) => {
      const requestId = typeof cause === 'string' ? cause : cause.headers.get('x-request-id');
      return eventually(async () => events.find((event) => (event['payload'] as Json)['request_id'] === requestId));
    };
  };

  /** The event envelope of ADR 0009 around an access event's payload. */
  const identityEvent = (name: string, resourceId: number, payload: Json) => ({
    id: expect.any(String),
    name,
    source: 'identity',
    occurred_at: expect.any(String),
    resource_id: resourceId,
    payload,
  });

  /** The relationship as identity reads it: the row with its newest credential version's state (docs/adr/0210). */
  const relationshipOf = async (tenant: Tenant, userId: number) => {
    const identity = s.db('identity');
    const [row, versions] = await Promise.all([
      identity.collection('relationships').findOne({ _id: `${tenant.resourceId}:${userId}` as never }),
      identity
        .collection('credentials')
        .find({ user_id: userId, scope: `rel:${tenant.resourceId}:${userId}` })
        .toArray(),
    ]);
    const newest = versions.sort((a, b) => (b['version'] as number) - (a['version'] as number))[0];
    return row && { ...row, ...(newest?.['state'] as object | undefined) };
  };

  const sessionOf = (sessionId: number) =>
    s
      .db('identity')
      .collection('sessions')
      .findOne({ _id: sessionId as never });

  const refreshRecordsOf = (sessionId: number) => s.db('identity').collection('refresh_tokens').countDocuments({ session_id: sessionId });

  return {
    operator,
    memberOfTwo,
    signedInAtBoth,
    identityEvent,
    signIn,
    signedIn,
    call,
    expectBlocked,
    expectForeign,
    expectBlockedSession,
    expectRevokedSession,
    expectWorking,
    listen,
    relationshipOf,
    sessionOf,
    refreshRecordsOf,
  };
}
