import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, expireSessionsOf, useStack } from './support.js';

/** Document 1: Conventions, Authentication and Errors, through the real gateway. */
describe('shared conventions', () => {
  const s = useStack();

  const signIn = async (publicKey: string, email: string, password: string) => {
    const response = await s.api('/authorization', { headers: { resource: publicKey }, json: { email, password } });
    expect(response.status).toBe(200);
    return response.body['token'] as string;
  };

  /** A signed-in member whose sessions then get `change` in the database; returns the tenant and token. */
  const signedInWithSessions = async (change: Record<string, unknown>) => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const token = await signIn(tenant.publicKey, member.email, member.password);
    await s.db('identity').collection('sessions').updateMany({ user_id: member.id }, { $set: change });
    if (change['expires_at']) await expireSessionsOf(s, member.id);
    return { tenant, token };
  };

  describe('envelope and request IDs', () => {
    it('answers an unknown path with 404 route_not_found in the envelope, with the request ID', async () => {
      const response = await s.api('/no/such/route');
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        error: 'route_not_found',
        error_description: 'No route serves GET /api/v1/no/such/route',
        req_guid: anyRequestId,
      });
      expect(response.headers.get('x-request-id')).toBe(response.body['req_guid']);
    });

    it('answers a method no route serves with route_not_found too', async () => {
      const response = await s.api('/plans', { method: 'DELETE' });
      expect(response.status).toBe(404);
      expect(response.body['error']).toBe('route_not_found');
    });

    it('answers outside /api/v1 with route_not_found', async () => {
      const response = await fetch(`${s.stack.gatewayUrl}/plans`);
      expect(response.status).toBe(404);
      expect(((await response.json()) as Record<string, unknown>)['error']).toBe('route_not_found');
    });

    it('counts requests by route template, methods apart, and requests no route serves as unmatched', async () => {
      const tenant = await createTenant(s.stack);
      const resource = { resource: tenant.publicKey };
      const scrape = async (): Promise<string> => (await fetch(`${s.stack.gatewayUrl}/metrics`)).text();
      const count = (text: string, method: string, route: string, status: number): number => {
        const series = `masthead_http_requests_total{method="${method}",route="${route}",status="${status}"} `;
        const line = text.split('\n').find((candidate) => candidate.startsWith(series));
        return line === undefined ? 0 : Number(line.slice(series.length));
      };
      const plan = await s.stack.operator.plans.upsertPlan({
        resourceId: tenant.resourceId,
        slug: 'counted',
        title: 'Counted',
        active: true,
        private: false,
        fullAccess: false,
      });
      const before = await scrape();
      expect((await s.api(`/plans/${plan.id}`, { headers: resource })).status).toBe(200);
      expect((await s.api('/plans/', { headers: resource })).status).toBe(200);
      expect((await s.api('/plans', { method: 'DELETE' })).status).toBe(404);
      expect((await s.api('/user/no-such-thing')).status).toBe(404);
      // An error on a matched route keeps the route's full template.
      expect((await s.api('/plans/999999999', { headers: resource })).status).toBe(404);
      const after = await scrape();
      const delta = (method: string, route: string, status: number) =>
        count(after, method, route, status) - count(before, method, route, status);
      expect([
        delta('GET', '/api/v1/plans/:id', 200),
        delta('GET', '/api/v1/plans', 200),
        delta('DELETE', 'unmatched', 404),
        delta('GET', 'unmatched', 404),
        delta('GET', '/api/v1/plans/:id', 404),
      ]).toEqual([1, 1, 1, 1, 1]);
    });

    it('puts a fresh request ID on every response, successes included', async () => {
      const tenant = await createTenant(s.stack);
      const first = await s.api('/plans', { headers: { resource: tenant.publicKey }, query: 'page=1' });
      const second = await s.api('/plans', { headers: { resource: tenant.publicKey }, query: 'page=1' });
      expect(first.status).toBe(200);
      expect(first.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(first.headers.get('x-request-id')).not.toBe(second.headers.get('x-request-id'));
    });
  });

  describe('resource resolution', () => {
    it('refuses an unknown resource key with 404 resource_not_exists', async () => {
      const response = await s.api('/plans', { headers: { resource: 'no-such-resource' } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'resource_not_exists', error_description: 'Resource does not exist', req_guid: anyRequestId });
    });

    it('refuses a missing resource key where the operation needs one', async () => {
      const response = await s.api('/plans');
      expect(response.status).toBe(404);
      expect(response.body['error']).toBe('resource_not_exists');
    });

    it('refuses an unknown key even where the resource is optional', async () => {
      const response = await s.api('/authorization', { headers: { resource: 'nope-nope' }, json: { email: 'a@b.test', password: 'x' } });
      expect(response.status).toBe(404);
      expect(response.body['error']).toBe('resource_not_exists');
    });
  });

  describe('identity and member context', () => {
    it('refuses a member operation without a token: 401 auth_failed', async () => {
      const tenant = await createTenant(s.stack);
      const response = await s.api('/user/tags', { headers: { resource: tenant.publicKey } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'auth_failed', error_description: 'Authentication required', req_guid: anyRequestId });
    });

    it('treats an unknown token as no identity', async () => {
      const tenant = await createTenant(s.stack);
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token: 'made-up-token' } });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('auth_failed');
    });

    it('refuses an expired session with 401 token_expired', async () => {
      const { tenant, token } = await signedInWithSessions({ expires_at: new Date(Date.now() - 1000) });
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({ error: 'token_expired', error_description: 'Session token has expired', req_guid: anyRequestId });
    });

    it('refuses a compromised session with 401 token_compromised', async () => {
      const { tenant, token } = await signedInWithSessions({ compromised_at: new Date() });
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('token_compromised');
    });

    it('lets GET /resource through with an expired session (excluded from expiry checks)', async () => {
      const { tenant, token } = await signedInWithSessions({ expires_at: new Date(Date.now() - 1000) });
      const response = await s.api('/resource', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(200);
      expect(response.body['public_key']).toBe(tenant.publicKey);
    });

    it.each(['locked', 'suspended', 'removed'])('refuses a member whose relationship is %s: 401 auth_access_fail', async (status) => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const token = await signIn(tenant.publicKey, member.email, member.password);
      await s
        .db('identity')
        .collection('relationships')
        .updateOne({ _id: `${tenant.resourceId}:${member.id}` as never }, { $set: { status } });
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(401);
      expect(response.body).toEqual({
        error: 'auth_access_fail',
        error_description: 'Account is inactive or its access to this resource is locked',
        req_guid: anyRequestId,
      });
    });

    it('refuses an inactive user: 401 auth_access_fail', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const token = await signIn(tenant.publicKey, member.email, member.password);
      await s
        .db('identity')
        .collection('users')
        .updateOne({ _id: member.id as never }, { $set: { active: false } });
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(401);
      expect(response.body['error']).toBe('auth_access_fail');
    });

    it('keeps a locked relationship in one resource from affecting another resource', async () => {
      const first = await createTenant(s.stack);
      const second = await createTenant(s.stack);
      const member = await createMember(s.stack, first);
      await s.stack.operator.identity.upsertMember({
        resourceId: second.resourceId,
        email: member.email,
        password: member.password,
        role: 'user',
      });
      const token = await signIn(second.publicKey, member.email, member.password);
      await s
        .db('identity')
        .collection('relationships')
        .updateOne({ _id: `${first.resourceId}:${member.id}` as never }, { $set: { status: 'locked' } });
      expect((await s.api('/user', { headers: { resource: second.publicKey, token } })).status).toBe(200);
    });
  });

  describe('role ACL', () => {
    const adminRoute = '/admin/currency';

    it('refuses an ordinary user on an admin operation: 403 access', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const token = await signIn(tenant.publicKey, member.email, member.password);
      const response = await s.api(adminRoute, { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(403);
      expect(response.body).toEqual({ error: 'access', error_description: 'Access denied', req_guid: anyRequestId });
    });

    it.each(['admin', 'partner', 'root'])('lets %s past the admin ACL (partner inherits admin, root bypasses)', async (role) => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { role });
      const token = await signIn(tenant.publicKey, member.email, member.password);
      const response = await s.api(adminRoute, { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(200);
    });

    it('refuses a member token on a service-account operation: 403 access', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const token = await signIn(tenant.publicKey, member.email, member.password);
      const response = await s.api('/integrations/external/subscription', {
        headers: { resource: tenant.publicKey, token },
        query: 'external_source_id=x',
      });
      expect(response.status).toBe(403);
      expect(response.body['error']).toBe('access');
    });

    it('lets root bypass a service-account route ACL', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant, { role: 'root' });
      const token = await signIn(tenant.publicKey, member.email, member.password);
      const response = await s.api('/integrations/external/subscription', { headers: { resource: tenant.publicKey, token } });
      // Past the ACL: the action itself answers (no external_source_id given).
      expect(response.status).toBe(409);
      expect(response.body['error']).toBe('external_source_id_required');
    });
  });

  describe('clients in the wild', () => {
    it('ignores an invented session header and unknown headers', async () => {
      const tenant = await createTenant(s.stack);
      const response = await s.api('/plans', {
        headers: { resource: tenant.publicKey, session: 'whatever-the-client-made-up', 'x-custom-thing': '1' },
      });
      expect(response.status).toBe(200);
    });

    it('treats a JSON content type with an empty body as no body (the operation’s own error)', async () => {
      const tenant = await createTenant(s.stack);
      const response = await s.api('/authorization', {
        headers: { resource: tenant.publicKey, 'content-type': 'application/json' },
        raw: '',
      });
      expect(response.status).toBe(409);
      expect(response.body['error']).toBe('invalid_email');
    });

    it('answers a malformed JSON body with the operation’s own documented error, not a 500', async () => {
      const tenant = await createTenant(s.stack);
      const response = await s.api('/authorization', {
        headers: { resource: tenant.publicKey, 'content-type': 'application/json' },
        raw: '{"email": ',
      });
      expect(response.status).toBe(409);
      expect(response.body['error']).toBe('invalid_email');
    });

    it('answers JSON nested past the depth limit as malformed: the operation’s own error, never a 500', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const token = await signIn(tenant.publicKey, member.email, member.password);
      const headers = { resource: tenant.publicKey, token, 'content-type': 'application/json' };
      const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      // Within the limit the operation judges the value itself.
      const shallow = await s.api('/user', { method: 'PUT', headers, raw: `{"first_name":"Ada","extra":{"k":${deep(5)}}}` });
      expect(shallow.status).toBe(200);
      for (const [method, path, raw, status, error] of [
        ['PUT', '/user', `{"extra":${deep(100_000)}}`, 409, 'incorrect_data'],
        ['PUT', '/idp/docstore/user', `{"fields":${deep(100_000)}}`, 400, 'incorrect_data'],
        ['POST', '/authorization', `{"email":${deep(40)}}`, 409, 'invalid_email'],
      ] as const) {
        const response = await s.api(path, { method, headers, raw });
        expect([path, response.status, response.body['error']]).toEqual([path, status, error]);
      }
    });

    it('refuses an oversized body with 413 in the envelope', async () => {
      const tenant = await createTenant(s.stack);
      const response = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: 'a@b.test', password: 'x'.repeat(2 * 1024 * 1024) },
      });
      expect(response.status).toBe(413);
      expect(response.body['error']).toBe('request_too_large');
    });
  });

  describe('CORS', () => {
    it('answers a preflight from an allowed origin with the credential headers, as JSON', async () => {
      await createTenant(s.stack, { allowedOrigins: ['https://reader.example'] });
      const response = await fetch(`${s.stack.baseUrl}/user`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://reader.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'token, resource',
        },
      });
      expect(response.status).toBe(200);
      expect(response.headers.get('access-control-allow-origin')).toBe('https://reader.example');
      expect(response.headers.get('access-control-allow-headers')).toContain('service-api-key');
      expect(response.headers.get('access-control-allow-headers')).toContain('idp-token');
      expect(await response.json()).toEqual({});
    });

    it('refuses a preflight from an origin no resource allows', async () => {
      const response = await fetch(`${s.stack.baseUrl}/user`, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'GET' },
      });
      expect(response.status).toBe(403);
      expect(response.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('allows an origin on a request only for the resource that lists it', async () => {
      const mine = await createTenant(s.stack, { allowedOrigins: ['https://mine.example'] });
      const other = await createTenant(s.stack);
      const allowed = await s.api('/plans', { headers: { resource: mine.publicKey, origin: 'https://mine.example' } });
      const denied = await s.api('/plans', { headers: { resource: other.publicKey, origin: 'https://mine.example' } });
      expect(allowed.headers.get('access-control-allow-origin')).toBe('https://mine.example');
      expect(denied.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});
