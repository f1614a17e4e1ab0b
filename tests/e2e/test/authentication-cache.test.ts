import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { eventually, grpcCallCounter, useStack } from './support.js';

const { calls, counter } = grpcCallCounter();

/**
 * The gateway's session-check cache (docs/adr/0042), with a lifetime far longer than any test:
 * whatever a test sees change, an announcement or the gateway's own logout changed.
 */
describe('session-check cache', () => {
  const s = useStack({ env: { AUTH_CACHE_TTL_MS: '60000' }, gatewayInterceptors: [counter] });

  async function signedIn(tenant: Tenant, member: { email: string; password: string }) {
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    return response.body as { token: string; refresh_token: string };
  }

  const readUser = (tenant: Tenant, token: string) => s.api('/user', { headers: { resource: tenant.publicKey, token } });

  /** The gRPC calls of one more read (each file's stack has a NATS of its own: nothing else drops our entries). */
  async function callsOfWarmRead(tenant: Tenant, token: string): Promise<string[]> {
    calls.length = 0;
    expect((await readUser(tenant, token)).status).toBe(200);
    return [...calls];
  }

  it('serves a repeated member read with one gRPC call', async () => {
    const tenant = await createTenant(s.stack);
    const { token } = await signedIn(tenant, await createMember(s.stack, tenant));
    expect((await readUser(tenant, token)).status).toBe(200);
    expect(await callsOfWarmRead(tenant, token)).toEqual(['/masthead.identity.v1.IdentityService/GetProfile']);
  });

  it('checks a member afresh after any request of it that may have written', async () => {
    const tenant = await createTenant(s.stack);
    const { token } = await signedIn(tenant, await createMember(s.stack, tenant));
    expect((await readUser(tenant, token)).status).toBe(200);
    expect((await s.api('/cleanup-refresh', { method: 'POST', headers: { resource: tenant.publicKey, token } })).status).toBe(200);
    calls.length = 0;
    expect((await readUser(tenant, token)).status).toBe(200);
    expect(calls).toEqual(['/masthead.identity.v1.IdentityService/Authenticate', '/masthead.identity.v1.IdentityService/GetProfile']);
  });

  it('refuses a token at once after its logout through the gateway', async () => {
    const tenant = await createTenant(s.stack);
    const { token } = await signedIn(tenant, await createMember(s.stack, tenant));
    expect((await readUser(tenant, token)).status).toBe(200);
    expect((await s.api('/logout', { headers: { resource: tenant.publicKey, token } })).status).toBe(200);
    const after = await readUser(tenant, token);
    expect([after.status, after.body['error']]).toEqual([401, 'token_expired']);
  });

  it('refuses the tokens of a session whose refresh record was replayed', async () => {
    const tenant = await createTenant(s.stack);
    const session = await signedIn(tenant, await createMember(s.stack, tenant));
    expect((await readUser(tenant, session.token)).status).toBe(200);
    const refresh = (json: Record<string, unknown> = {}) =>
      s.api('/authorization/refresh', { headers: { resource: tenant.publicKey }, json: { refresh_token: session.refresh_token, ...json } });
    expect((await refresh()).status).toBe(200);
    // Asking to keep a consumed record is a replay at any time (docs/adr/0086).
    expect((await refresh({ reusable_refresh: true })).body['error']).toBe('token_compromised');
    const after = await eventually(async () => {
      const response = await readUser(tenant, session.token);
      return response.status === 401 ? response : undefined;
    });
    expect(after.body['error']).toBe('token_compromised');
  });

  it("keeps a token's answer per resource: another resource's key never finds it (docs/adr/0085)", async () => {
    const tenant = await createTenant(s.stack);
    const other = await createTenant(s.stack);
    const { token } = await signedIn(tenant, await createMember(s.stack, tenant));
    const elsewhere = () => s.api('/user', { headers: { resource: other.publicKey, token } });
    expect((await elsewhere()).body['error']).toBe('auth_failed');
    expect((await readUser(tenant, token)).status).toBe(200);
    expect((await elsewhere()).body['error']).toBe('auth_failed');
    expect((await readUser(tenant, token)).status).toBe(200);
  });

  it('sees an operator change of a signed-in member', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const { token } = await signedIn(tenant, member);
    const adminRead = () => s.api('/admin/currency', { headers: { resource: tenant.publicKey, token } });
    expect((await adminRead()).status).toBe(403);
    await s.stack.operator.identity.upsertMember({
      resourceId: tenant.resourceId,
      email: member.email,
      password: member.password,
      role: 'admin',
    });
    await eventually(async () => ((await adminRead()).status === 200 ? true : undefined));
  });

  it('keeps members apart: one member’s change leaves another’s entry alone', async () => {
    const tenant = await createTenant(s.stack);
    const first = await signedIn(tenant, await createMember(s.stack, tenant));
    const second = await signedIn(tenant, await createMember(s.stack, tenant));
    expect((await readUser(tenant, second.token)).status).toBe(200);
    await s.api('/logout', { headers: { resource: tenant.publicKey, token: first.token } });
    expect(await callsOfWarmRead(tenant, second.token)).toEqual(['/masthead.identity.v1.IdentityService/GetProfile']);
  });
});
