import { ROUTES } from '@masthead/gateway';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, useStack, type StackHandle } from './support.js';

/** Access classes whose routes need a signed-in caller: a token is all that lets one in. */
const SIGNED_IN_CLASSES = new Set(['member', 'memberOptionalResource', 'memberAnySession', 'admin']);
/** The other classes: guests pass, or a service-account key (not a session token) is needed. */
const OTHER_CLASSES = new Set(['guest', 'guestWithResource', 'guestOrMember', 'serviceAccount', 'external']);
const SIGNED_IN_ROUTES = ROUTES.filter((route) => SIGNED_IN_CLASSES.has(route.access));

/** One body for every writing route, with fields each built writer would act on today. */
const WRITING_BODY = {
  first_name: 'Mallory',
  nick_name: 'mallory',
  extra_groups: [{ group_key: 'g', field_key: 'k', field_value: 'changed' }],
  custom_fields: [{ field_key: 'k', field_value: 'changed' }],
  password: 'a-brand-new-passphrase',
  current_password: 'whatever-it-was',
  email: 'mallory@example.test',
  auto_renew: false,
};

/** Every document of the stack's own databases, for "the request changed nothing". */
async function snapshot(s: StackHandle): Promise<Record<string, unknown[]>> {
  const all: Record<string, unknown[]> = {};
  for (const service of ['accounts', 'identity', 'catalog', 'community']) {
    const db = s.db(service);
    for (const { name } of await db.listCollections().toArray()) {
      all[`${service}.${name}`] = await db.collection(name).find().sort({ _id: 1 }).toArray();
    }
  }
  return all;
}

/**
 * A session works only in the resource it was issued for (docs/adr/0085): a token of resource A
 * sent with resource B's key is no token at all there.
 */
describe('sessions bound to their resource', () => {
  const s = useStack();

  /** A member of A and of B, signed in to both, with data of her own in B to protect. */
  async function memberOfTwo() {
    const a = await createTenant(s.stack);
    const b = await createTenant(s.stack);
    const member = await createMember(s.stack, a);
    await createMember(s.stack, b, { email: member.email, password: member.password });
    const signIn = async (tenant: Tenant) => {
      const response = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: member.email, password: member.password },
      });
      expect(response.status).toBe(200);
      return response.body as { token: string; refresh_token: string };
    };
    const inA = await signIn(a);
    const inB = await signIn(b);
    const bHeaders = { resource: b.publicKey, token: inB.token };
    expect(
      (
        await s.api('/user/extra/data', {
          method: 'PUT',
          headers: bHeaders,
          json: { extra_groups: [{ group_key: 'g', field_key: 'k', field_value: 'mine' }] },
        })
      ).status,
    ).toBe(200);
    // Her own password in B: B now refuses her global password, and her A session must not
    // stand in for it.
    expect((await s.api('/user/password', { headers: bHeaders, json: { password: 'resource-b-passphrase' } })).status).toBe(200);
    return { a, b, member, inA, inB };
  }

  const authFailed = { error: 'auth_failed', error_description: expect.any(String), req_guid: anyRequestId };

  it('covers every access class of the route table (a new class must be placed here)', () => {
    for (const route of ROUTES) expect(SIGNED_IN_CLASSES.has(route.access) || OTHER_CLASSES.has(route.access)).toBe(true);
    expect(SIGNED_IN_ROUTES.length).toBeGreaterThan(20);
  });

  it("answers 401 auth_failed on every built signed-in operation for another resource's token, and changes nothing", async () => {
    const { a, b, inA } = await memberOfTwo();
    const before = await snapshot(s);
    const answers: string[] = [];
    for (const route of SIGNED_IN_ROUTES) {
      const path = route.path.replace(/\{[^}]+\}/g, '1');
      const response = await s.api(path, {
        method: route.method,
        headers: { resource: b.publicKey, token: inA.token },
        ...(route.method === 'GET' ? {} : { json: WRITING_BODY }),
      });
      const ok = response.status === 401 && expect.objectContaining(authFailed).asymmetricMatch(response.body);
      if (!ok) answers.push(`${route.method} ${route.path} → ${response.status} ${JSON.stringify(response.body).slice(0, 80)}`);
    }
    expect(answers).toEqual([]);
    expect(await snapshot(s)).toEqual(before);
    // The token still works where it belongs.
    expect((await s.api('/user', { headers: { resource: a.publicKey, token: inA.token } })).status).toBe(200);
  });

  it('treats the foreign token as none on guest routes: cleanup-refresh finds no user and removes nothing', async () => {
    const { a, b, member, inA } = await memberOfTwo();
    const response = await s.api('/cleanup-refresh', { method: 'POST', headers: { resource: b.publicKey, token: inA.token } });
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ error: 'user_not_exist', error_description: expect.any(String), req_guid: anyRequestId });
    expect(await s.db('identity').collection('refresh_tokens').countDocuments({ user_id: member.id })).toBe(2);
    const refreshed = await s.api('/authorization/refresh', {
      headers: { resource: a.publicKey },
      json: { refresh_token: inA.refresh_token, response_type: 'token' },
    });
    expect(refreshed.status).toBe(200);
  });

  it('refuses a session signed in without a resource in every resource', async () => {
    const { a, member } = await memberOfTwo();
    const global = await s.api('/authorization', { json: { email: member.email, password: member.password } });
    expect(global.status).toBe(200);
    const token = global.body['token'] as string;
    expect((await s.api('/user', { headers: { token } })).status).toBe(200);
    const inA = await s.api('/user/extra/data', { headers: { resource: a.publicKey, token } });
    expect(inA.status).toBe(401);
    expect(inA.body).toEqual(authFailed);
  });

  it("without a resource header a token acts in its own session's resource", async () => {
    const { a, b, inA, inB } = await memberOfTwo();
    // Suspended in B: her B token is refused there and, without a header, still judged in B.
    expect((await s.api('/user/suspend', { method: 'POST', headers: { resource: b.publicKey, token: inB.token } })).status).toBe(200);
    const dropped = await s.api('/user', { headers: { token: inB.token } });
    expect(dropped.status).toBe(401);
    expect(dropped.body['error']).toBe('auth_access_fail');
    // Her A session is untouched by the B suspension, with or without the header.
    expect((await s.api('/user', { headers: { token: inA.token } })).status).toBe(200);
    expect((await s.api('/user', { headers: { resource: a.publicKey, token: inA.token } })).status).toBe(200);
    // Logout without a header ends the session the token belongs to.
    expect((await s.api('/logout', { headers: { token: inA.token } })).body).toEqual({ result: true });
    expect((await s.api('/user', { headers: { resource: a.publicKey, token: inA.token } })).body['error']).toBe('token_expired');
  });
});
