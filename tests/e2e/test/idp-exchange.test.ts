import { createVerifier } from '@masthead/entitlements';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { createServiceClient } from '@masthead/core/grpc';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { describe, expect, it } from 'vitest';
import { catalogKit } from './catalog-support.js';
import { errorBody, idpEmulator, unsignedToken } from './idp-support.js';
import { anyEntitlementToken, anyToken, collectEvents, eventually, useStack } from './support.js';

/** The create-member flag: its first letter is the Cyrillic U+0441. */
const FLAG = '\u0441reate_user_if_not_exist';
const ASCII_FLAG = 'create_user_if_not_exist';

/** POST /idp/oauth/token (document 1, section A) against the Firebase Auth emulator. */
describe('POST /idp/oauth/token', () => {
  const s = useStack();
  const idp = idpEmulator();
  const providerTenant = () => createTenant(s.stack, { settings: idp.settings() });
  const kit = catalogKit(s);
  /** An operator's invitation code (the admin CLI's RPC). */
  const invitationCode = async (
    tenant: Tenant,
    pricingId: number,
    fields: { code?: string; activationsLimit?: number; email?: string } = {},
  ) => {
    const client = createServiceClient(InvitationsServiceService, s.stack.env['COMMUNITY_ADDR']!, { defaultDeadlineMs: 10_000 });
    try {
      return await client.createInvitationCode({
        resourceId: tenant.resourceId,
        pricingId,
        code: fields.code ?? '',
        activationsLimit: fields.activationsLimit ?? 0,
        email: fields.email ?? '',
        title: '',
        description: '',
      });
    } finally {
      client.close();
    }
  };
  const exchange = (tenant: Tenant, idToken: string | null, json?: unknown) =>
    s.api('/idp/oauth/token', {
      method: 'POST',
      headers: { resource: tenant.publicKey, ...(idToken === null ? {} : { 'idp-token': idToken }) },
      json: json ?? {},
    });

  it('registers a new identity (201, user_signup), then signs the linked identity in (200, user_login)', async () => {
    const tenant = await providerTenant();
    const person = await idp.createUser();
    const signups = collectEvents(s.nats, 'user_signup');
    const logins = collectEvents(s.nats, 'user_login');
    await s.nats.flush();

    const first = await exchange(tenant, person.idToken);
    expect(first.status).toBe(201);
    expect(first.body).toEqual({ token: anyToken, existed: false, entitlement_token: anyEntitlementToken });
    const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: first.body['token'] as string } });
    expect(user.status).toBe(200);
    expect(user.body).toMatchObject({ email: person.email, active: true });
    const userId = (user.body as { id: number }).id;
    await eventually(async () => signups.find((event) => (event['payload'] as { user_id: number }).user_id === userId));

    const second = await exchange(tenant, person.idToken);
    expect(second.status).toBe(200);
    expect(second.body).toEqual({ token: anyToken, existed: true, entitlement_token: anyEntitlementToken });
    expect(second.body['token']).not.toBe(first.body['token']);
    await eventually(async () => logins.find((event) => (event['payload'] as { user_id: number }).user_id === userId));
    // Beyond the spec (docs/adr/0246): the member's entitlement token, signed with the published keys.
    const verifier = createVerifier({ resource: tenant.publicKey, jwksUrl: `${s.stack.gatewayUrl}/.well-known/jwks.json` });
    for (const answer of [first, second])
      expect((await verifier.verify(answer.body['entitlement_token'] as string)).sub).toBe(String(userId));
  });

  it('links an existing member only by a verified email, reporting the relationship as existed', async () => {
    const tenant = await providerTenant();
    const member = await createMember(s.stack, tenant);
    const person = await idp.createUser({ email: member.email });
    // Anyone can create a provider identity with someone's address; only a verified one links.
    expect((await exchange(tenant, person.idToken)).body).toEqual(errorBody('verify_failed'));

    await idp.verifyEmail(person.uid);
    const response = await exchange(tenant, await idp.signIn(person.email, person.password));
    expect(response.status).toBe(201);
    expect(response.body).toEqual({ token: anyToken, existed: true, entitlement_token: anyEntitlementToken });
    const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: response.body['token'] as string } });
    expect(user.body).toMatchObject({ id: member.id, email: member.email });
  });

  describe('the create-member flag', () => {
    it('false (JSON boolean, Cyrillic name) refuses a missing relationship: 403 user_resource_not_exist', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await exchange(tenant, person.idToken, { [FLAG]: false });
      expect(response.status).toBe(403);
      expect(response.body).toEqual(errorBody('user_resource_not_exist'));
      expect(await s.db('identity').collection('users').findOne({ email: person.email })).toBeNull();
    });

    it('false keeps a linked member out of a resource they have not joined', async () => {
      const [home, other] = await Promise.all([providerTenant(), providerTenant()]);
      const person = await idp.createUser();
      expect((await exchange(home, person.idToken)).status).toBe(201);
      expect((await exchange(other, person.idToken, { [FLAG]: false })).body).toEqual(errorBody('user_resource_not_exist'));
      const joined = await exchange(other, person.idToken, { [FLAG]: true });
      expect(joined.status).toBe(200);
      expect(joined.body).toEqual({ token: anyToken, existed: true, entitlement_token: anyEntitlementToken });
    });

    it.each([
      ['the ASCII spelling', { [ASCII_FLAG]: false }],
      ['a string', { [FLAG]: 'false' }],
      ['a number', { [FLAG]: 0 }],
      ['null', { [FLAG]: null }],
    ])('%s is not honoured (default true: 201)', async (_label, body) => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await exchange(tenant, person.idToken, body);
      expect(response.status).toBe(201);
      expect(response.body).toEqual({ token: anyToken, existed: false, entitlement_token: anyEntitlementToken });
    });

    it('a form field is not a JSON boolean, so it is not honoured', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await s.api('/idp/oauth/token', {
        method: 'POST',
        headers: { resource: tenant.publicKey, 'idp-token': person.idToken },
        form: { [FLAG]: 'false' },
      });
      expect(response.status).toBe(201);
    });
  });

  describe('errors', () => {
    it('401 authorization_fail for a locked relationship or an inactive user', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const token = (await exchange(tenant, person.idToken)).body['token'] as string;
      const user = await s.api<{ id: number }>('/user', { headers: { resource: tenant.publicKey, token } });
      const relationships = s.db('identity').collection<{ _id: string }>('relationships');
      await relationships.updateOne({ _id: `${tenant.resourceId}:${user.body.id}` }, { $set: { status: 'locked' } });
      const locked = await exchange(tenant, person.idToken);
      expect(locked.status).toBe(401);
      expect(locked.body).toEqual(errorBody('authorization_fail'));

      await relationships.updateOne({ _id: `${tenant.resourceId}:${user.body.id}` }, { $set: { status: 'active' } });
      await s
        .db('identity')
        .collection<{ _id: number }>('users')
        .updateOne({ _id: user.body.id }, { $set: { active: false } });
      expect((await exchange(tenant, person.idToken)).body).toEqual(errorBody('authorization_fail'));
    });

    it('409 service_not_active where the resource has no provider enabled', async () => {
      const tenant = await createTenant(s.stack);
      const person = await idp.createUser();
      const response = await exchange(tenant, person.idToken);
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('service_not_active'));
    });

    it.each([
      ['no idp-token', null],
      ['a malformed token', 'not-a-jwt'],
      ['an expired token', 'expired'],
      ["another project's token", 'other-project'],
      // Over the 8 KB cap, under Node's 16 KB header limit (beyond it the server answers 431).
      ['a very long token', 'x'.repeat(9000)],
      // Headers carry Latin-1 only; fetch refuses anything wider.
      ['odd characters', '\u00ff\u00e9.\u00a0.\u00bf'],
    ])('409 verify_failed for %s', async (_label, kind) => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const now = Math.floor(Date.now() / 1000);
      const token =
        kind === 'expired'
          ? unsignedToken(idp.projectId, { sub: person.uid, user_id: person.uid, iat: now - 7200, auth_time: now - 7200, exp: now - 3600 })
          : kind === 'other-project'
            ? unsignedToken('demo-other-project', { sub: person.uid })
            : kind;
      const response = await exchange(tenant, token);
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('verify_failed'));
    });

    it('409 empty_user_id for a token without a subject', async () => {
      const tenant = await providerTenant();
      const response = await exchange(tenant, unsignedToken(idp.projectId, { email: 'nobody@example.test' }));
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('empty_user_id'));
    });

    it('409 verify_failed for an invitation it cannot accept, before writing anything', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await exchange(tenant, person.idToken, { invite: '  TEAM-INVITE-1 ' });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('verify_failed'));
      expect(await s.db('identity').collection('users').findOne({ email: person.email })).toBeNull();
    });

    it("accepts an invitation through community: the code's membership, in the exchange's own resource", async () => {
      const tenant = await providerTenant();
      const plan = await kit.plan(tenant, 'invited', { title: 'Invited' });
      const free = await kit.pricing(plan.id, 'Invited free', { price: 0 });
      const code = await invitationCode(tenant, free.id, { code: 'Idp-Welcome-01', activationsLimit: 1 });
      const person = await idp.createUser();
      const response = await exchange(tenant, person.idToken, { invite: '  idp-welcome-01 ' });
      expect(response.status).toBe(201);
      const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: response.body['token'] as string } });
      const userId = (user.body as { id: number }).id;
      const memberships = await s.db('catalog').collection('memberships').find({ user_id: userId, active: true }).toArray();
      expect(memberships.map((row) => row['pricing_id'])).toEqual([free.id]);
      expect(await s.db('community').collection('invite_activations').countDocuments({ invite_id: code?.['id'], user_id: userId })).toBe(1);

      // Used up (cap 1): the next identity is refused before anything is written.
      const next = await idp.createUser();
      expect((await exchange(tenant, next.idToken, { invite: 'idp-welcome-01' })).body).toEqual(errorBody('verify_failed'));
      expect(await s.db('identity').collection('users').findOne({ email: next.email })).toBeNull();
      // Another resource's code is no code here.
      const elsewhere = await providerTenant();
      const other = await invitationCode(elsewhere, (await kit.pricing((await kit.plan(elsewhere, 'x')).id, 'X', { price: 0 })).id);
      expect((await exchange(tenant, next.idToken, { invite: other?.['code'] })).body).toEqual(errorBody('verify_failed'));
      expect(await s.db('community').collection('invite_activations').countDocuments({ invite_id: other?.['id'] })).toBe(0);
    });

    it('409 verify_failed for a code bound to another email, before writing anything', async () => {
      const tenant = await providerTenant();
      const plan = await kit.plan(tenant, 'invited', { title: 'Invited' });
      const free = await kit.pricing(plan.id, 'Invited free', { price: 0 });
      await invitationCode(tenant, free.id, { code: 'bound-idp-0001', email: 'someone@example.test' });
      const person = await idp.createUser();
      expect((await exchange(tenant, person.idToken, { invite: 'bound-idp-0001' })).body).toEqual(errorBody('verify_failed'));
      expect(await s.db('identity').collection('users').findOne({ email: person.email })).toBeNull();
    });

    it('never answers 500 for malformed JSON or odd types', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const headers = { resource: tenant.publicKey, 'idp-token': person.idToken, 'content-type': 'application/json' };
      const malformed = await s.api('/idp/oauth/token', { method: 'POST', headers, raw: '{"invite": ' });
      expect(malformed.status).toBe(201);
      const odd = await exchange(tenant, person.idToken, { invite: { $gt: '' }, [FLAG]: [true] });
      expect(odd.status).toBe(200);
      const unicode = await exchange(tenant, person.idToken, { invite: '\u0000\u202e\ud83d\ude00'.repeat(100) });
      expect(unicode.status).toBe(409);
      expect(unicode.body).toEqual(errorBody('verify_failed'));
    });
  });

  describe('the three credentials are not interchangeable', () => {
    it('a session token or a custom token is not an idp-token; an idp-token is not a session token', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const session = (await exchange(tenant, person.idToken)).body['token'] as string;
      const custom = await s.api('/idp/custom-token', { headers: { resource: tenant.publicKey, token: session } });
      expect(custom.status).toBe(200);
      const customToken = custom.body['idp_custom_token'] as string;

      expect((await exchange(tenant, session)).body).toEqual(errorBody('verify_failed'));
      expect((await exchange(tenant, customToken)).body).toEqual(errorBody('verify_failed'));
      const verifyCustom = await s.api('/idp/verify-token', {
        method: 'POST',
        headers: { resource: tenant.publicKey, 'idp-token': customToken },
      });
      expect(verifyCustom.status).toBe(400);
      const asSession = await s.api('/user', { headers: { resource: tenant.publicKey, token: person.idToken } });
      expect(asSession.status).toBe(401);
      expect(asSession.body).toEqual(errorBody('auth_failed'));
      const asRefresh = await s.api('/authorization/refresh', {
        headers: { resource: tenant.publicKey },
        json: { refresh_token: person.idToken, response_type: 'token' },
      });
      expect(asRefresh.status).toBe(409);
    });

    it('an idp-token sent along with a session token is ignored by the shared checks (ADR 0053)', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const session = (await exchange(tenant, person.idToken)).body['token'] as string;
      const headers = { resource: tenant.publicKey, token: session };
      expect((await s.api('/user', { headers: { ...headers, 'idp-token': 'stale-or-garbage' } })).status).toBe(200);
      expect((await s.api('/user', { headers: { ...headers, 'idp-token': person.idToken } })).status).toBe(200);
    });
  });
});
