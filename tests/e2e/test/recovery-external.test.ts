import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { createServiceClient, type ServiceClient } from '@masthead/core/grpc';
import { AccountRecoveryServiceService } from '@masthead/proto/identity/recovery';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectError, expireCodes, sessionResult } from './recovery-support.js';
import { useStack } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** GET /auth/external/{token}: one-time login tokens issued by the operator (docs/adr/0057). */
describe('external authentication', () => {
  const s = useStack({ env: { CODE_ATTEMPT_LIMIT_PER_HOUR: '1000', EXTERNAL_LOGIN_TTL_SECONDS: '120' } });
  let recovery: ServiceClient<typeof AccountRecoveryServiceService>;
  beforeAll(() => {
    recovery = createServiceClient(AccountRecoveryServiceService, s.stack.env['IDENTITY_ADDR']!, { defaultDeadlineMs: 10_000 });
  });
  afterAll(() => recovery?.close());

  const issue = (tenant: Tenant, email: string, ttlSeconds = 0) =>
    recovery.issueExternalLoginToken({ resourceId: tenant.resourceId, email, ttlSeconds });
  const login = (tenant: Tenant | null, token: string) =>
    s.api(`/auth/external/${encodeURIComponent(token)}`, { headers: tenant ? { resource: tenant.publicKey } : {} });

  it('signs the member in with the session result, once', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const before = Math.floor(Date.now() / 1000);
    const issued = await issue(tenant, member.email.toUpperCase());
    expect(issued).toEqual({ token: expect.stringMatching(/^[A-Za-z0-9_-]{48}$/), userId: member.id, expires: expect.any(Number) });
    expect(issued.expires - before).toBeGreaterThanOrEqual(119);
    expect(issued.expires - before).toBeLessThanOrEqual(121);

    const response = await login(tenant, issued.token);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(sessionResult(member.id, member.email, true));
    const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: response.body['token'] as string } });
    expect(user.body['id']).toBe(member.id);
    expectError(await login(tenant, issued.token), 401, 'authorization_fail');
    const dump = JSON.stringify(await s.db('identity').collection('member_codes').find().toArray());
    expect(dump).not.toContain(issued.token.slice(16));
  });

  it('caps the lifetime an operator asks for at EXTERNAL_LOGIN_TTL_SECONDS', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const now = Math.floor(Date.now() / 1000);
    expect((await issue(tenant, member.email, 30)).expires - now).toBeLessThanOrEqual(31);
    expect((await issue(tenant, member.email, 100_000)).expires - now).toBeLessThanOrEqual(121);
  });

  it('refuses an expired token, a token of another resource, a replaced one and garbage: 401 authorization_fail', async () => {
    const tenant = await createTenant(s.stack);
    const other = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const replaced = await issue(tenant, member.email);
    const current = await issue(tenant, member.email);
    expectError(await login(tenant, replaced.token), 401, 'authorization_fail');
    expectError(await login(other, current.token), 401, 'authorization_fail');
    for (const garbage of ['x', 'é'.repeat(300), '..%2F..%2Fetc', current.token.slice(0, -1)]) {
      expectError(await login(tenant, garbage), 401, 'authorization_fail');
    }
    await expireCodes(s, { user_id: member.id });
    expectError(await login(tenant, current.token), 401, 'authorization_fail');
  });

  it('refuses a member whose relationship is locked, and needs a resource', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const issued = await issue(tenant, member.email);
    expectError(await login(null, issued.token), 404, 'resource_not_exists');
    await s
      .db('identity')
      .collection('relationships')
      .updateOne({ _id: `${tenant.resourceId}:${member.id}` as never }, { $set: { status: 'locked' } });
    expectError(await login(tenant, issued.token), 401, 'authorization_fail');
  });

  it('issues tokens only for members of the resource (gRPC NOT_FOUND user_not_exist, FAILED_PRECONDITION invalid_email)', async () => {
    const tenant = await createTenant(s.stack);
    const other = await createTenant(s.stack);
    const member = await createMember(s.stack, other);
    await expect(issue(tenant, member.email)).rejects.toMatchObject({ status: 404, code: 'user_not_exist' });
    await expect(issue(tenant, 'nobody@example.test')).rejects.toMatchObject({ status: 404, code: 'user_not_exist' });
    await expect(issue(tenant, 'not-an-email')).rejects.toMatchObject({ status: 409, code: 'invalid_email' });
  });

  it('lets the operator issue a token with the admin CLI', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const { stdout } = await run(
      process.execPath,
      ['tools/admin/dist/cli.js', 'issue-login-token', '--resource-id', String(tenant.resourceId), '--email', member.email],
      { cwd: repoRoot, env: { ...process.env, ...s.stack.env } },
    );
    const printed = JSON.parse(stdout) as { user_id: number; token: string; path: string; expires: number };
    expect(printed).toEqual({
      user_id: member.id,
      token: expect.any(String),
      path: `/auth/external/${printed.token}`,
      expires: expect.any(Number),
    });
    expect((await s.api(printed.path, { headers: { resource: tenant.publicKey } })).body).toEqual(
      sessionResult(member.id, member.email, true),
    );
  });
});
