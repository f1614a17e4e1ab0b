import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { dynamicErrorBody, errorBody, idpEmulator } from './idp-support.js';
import { anyRequestId, useStack } from './support.js';

/** Document 1, section A except the exchange (idp-exchange.test.ts); designs in ADR 0051. */
describe('identity provider operations', () => {
  const s = useStack();
  const idp = idpEmulator();
  const providerTenant = (host?: string) => createTenant(s.stack, { settings: idp.settings(), ...(host ? { host } : {}) });
  const verify = (tenant: Tenant, idToken?: string) =>
    s.api('/idp/verify-token', { method: 'POST', headers: { resource: tenant.publicKey, ...(idToken ? { 'idp-token': idToken } : {}) } });
  /** A member signed in through the exchange, linked to a provider identity. */
  const linkedMember = async (tenant: Tenant) => {
    const person = await idp.createUser();
    const exchanged = await s.api('/idp/oauth/token', { headers: { resource: tenant.publicKey, 'idp-token': person.idToken }, json: {} });
    return { ...person, token: exchanged.body['token'] as string };
  };

  describe('POST /idp/sign-in', () => {
    const signIn = (tenant: Tenant, request: { json?: unknown; raw?: string; form?: Record<string, string> }) =>
      s.api('/idp/sign-in', { method: 'POST', headers: { resource: tenant.publicKey }, ...request });

    it('returns the provider identity and an ID token that verifies; no session', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await signIn(tenant, { json: { email: `  ${person.email.toUpperCase()} `, password: ` ${person.password} ` } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        idp_user_id: person.uid,
        status: true,
        idp_token_id: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]*$/),
      });
      const verified = await verify(tenant, response.body['idp_token_id'] as string);
      expect(verified.body).toMatchObject({ status: true, idp_user_id: person.uid });
    });

    it('answers a wrong password and an unknown email alike: 400 with a safe text', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const wrong = await signIn(tenant, { json: { email: person.email, password: 'not-the-password' } });
      const unknown = await signIn(tenant, { json: { email: 'nobody-here@example.test', password: 'whatever' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body).toEqual(dynamicErrorBody('Invalid email or password'));
      expect(unknown.body).toEqual(dynamicErrorBody('Invalid email or password'));
    });

    it.each([
      ['no body', {}],
      ['a form body', { form: { email: 'a@example.test', password: 'x' } }],
      ['malformed JSON', { raw: '{"email": ' }],
      ['a JSON array', { json: [] }],
    ])('400 incorrect_data for %s', async (_label, request) => {
      const tenant = await providerTenant();
      const response = await signIn(tenant, request);
      expect(response.status).toBe(400);
      expect(response.body).toEqual(errorBody('incorrect_data'));
    });

    it.each([
      [{ password: 'x' }, 'invalid_email'],
      [{ email: 'not-an-email', password: 'x' }, 'invalid_email'],
      [{ email: 7, password: 'x' }, 'invalid_email'],
      [{ email: `${'a'.repeat(300)}@example.test`, password: 'x' }, 'invalid_email'],
      [{ email: 'a@example.test' }, 'invalid_password'],
      [{ email: 'a@example.test', password: '   ' }, 'invalid_password'],
      [{ email: 'a@example.test', password: true }, 'invalid_password'],
    ])('409 for %j', async (json, code) => {
      const tenant = await providerTenant();
      const response = await signIn(tenant, { json });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody(code));
    });

    it('409 service_not_active without a provider', async () => {
      const tenant = await createTenant(s.stack);
      expect((await signIn(tenant, { json: { email: 'a@example.test', password: 'x' } })).body).toEqual(errorBody('service_not_active'));
    });
  });

  describe('POST /idp/verify-token', () => {
    it('returns the expiry as Y-m-d H:i:s and the provider identity', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await verify(tenant, person.idToken);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        status: true,
        expired_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        idp_user_id: person.uid,
      });
      const claims = JSON.parse(Buffer.from(person.idToken.split('.')[1]!, 'base64url').toString()) as { exp: number };
      expect(response.body['expired_at']).toBe(new Date(claims.exp * 1000).toISOString().slice(0, 19).replace('T', ' '));
    });

    it('400 Empty IdP Token without the header, 400 with a safe text for a bad token', async () => {
      const tenant = await providerTenant();
      const empty = await verify(tenant);
      expect(empty.status).toBe(400);
      expect(empty.body).toEqual(dynamicErrorBody('Empty IdP Token'));
      const bad = await verify(tenant, 'a.b.c');
      expect(bad.status).toBe(400);
      expect(bad.body).toEqual(dynamicErrorBody('The IdP token is invalid'));
    });
  });

  describe('POST /idp/registration', () => {
    it('creates and links the member without a session (201), then reports the link (200)', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const headers = { resource: tenant.publicKey, 'idp-token': person.idToken };
      const created = await s.api('/idp/registration', { headers, json: { first_name: ' Grace ', last_name: 7 } });
      expect(created.status).toBe(201);
      expect(created.body).toEqual({ user_id: expect.any(Number), idp_user_id: person.uid, existed: false });
      const stored = await s.db('identity').collection('users').findOne({ email: person.email });
      expect(stored).toMatchObject({ first_name: 'Grace', last_name: null, password_hash: null });
      const again = await s.api('/idp/registration', { headers, json: {} });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ user_id: created.body['user_id'], idp_user_id: person.uid, existed: true });
    });

    it('409 verify_failed without a token', async () => {
      const tenant = await providerTenant();
      expect((await s.api('/idp/registration', { headers: { resource: tenant.publicKey }, json: {} })).body).toEqual(
        errorBody('verify_failed'),
      );
    });
  });

  describe('POST /idp/revoke-token', () => {
    it("revokes the identity's provider sessions", async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      const response = await s.api('/idp/revoke-token', {
        method: 'POST',
        headers: { resource: tenant.publicKey, 'idp-token': person.idToken },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: true, idp_user_id: person.uid });
      const none = await s.api('/idp/revoke-token', { method: 'POST', headers: { resource: tenant.publicKey } });
      expect(none.body).toEqual(errorBody('verify_failed'));
    });
  });

  describe('GET /idp/custom-token', () => {
    it('gives a linked member a custom token that signs in at the provider as their identity', async () => {
      const tenant = await providerTenant();
      const member = await linkedMember(tenant);
      const response = await s.api('/idp/custom-token', { headers: { resource: tenant.publicKey, token: member.token } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ status: true, idp_custom_token: expect.any(String) });
      const idToken = await idp.exchangeCustomToken(response.body['idp_custom_token'] as string);
      const verified = await verify(tenant, idToken);
      expect(verified.body).toMatchObject({ idp_user_id: member.uid });
    });

    it('401 auth_failed for a guest or an idp-token alone; 409 idp_not_linked for an ordinary member', async () => {
      const tenant = await providerTenant();
      const member = await linkedMember(tenant);
      const guest = await s.api('/idp/custom-token', { headers: { resource: tenant.publicKey, 'idp-token': member.idToken } });
      expect(guest.status).toBe(401);
      expect(guest.body).toEqual(errorBody('auth_failed'));
      const ordinary = await createMember(s.stack, tenant);
      const signedIn = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: ordinary.email, password: ordinary.password },
      });
      const unlinked = await s.api('/idp/custom-token', {
        headers: { resource: tenant.publicKey, token: signedIn.body['token'] as string },
      });
      expect(unlinked.status).toBe(409);
      expect(unlinked.body).toEqual(errorBody('idp_not_linked'));
    });
  });

  describe('GET /idp/account', () => {
    it("returns the resource's public provider configuration, never a server credential", async () => {
      const tenant = await providerTenant();
      const response = await s.api('/idp/account', { headers: { resource: tenant.publicKey } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ project_id: idp.projectId, web_app_config: idp.settings().idp_web_app_config });
      const resource = await s.api('/resource', { headers: { resource: tenant.publicKey, token: (await linkedMember(tenant)).token } });
      expect(resource.body).toMatchObject({ web_app_config: idp.settings().idp_web_app_config });
    });

    it('409 service_not_active without a provider, 404 resource_not_exists without a resource', async () => {
      const tenant = await createTenant(s.stack, { settings: { idp_auth: false, idp_web_app_config: idp.settings().idp_web_app_config } });
      expect((await s.api('/idp/account', { headers: { resource: tenant.publicKey } })).body).toEqual(errorBody('service_not_active'));
      expect((await s.api('/idp/account')).body).toEqual(errorBody('resource_not_exists'));
    });
  });

  describe('GET /idp/check/email', () => {
    it('tells membership of this resource and the provider link, nothing about other resources', async () => {
      const [tenant, other] = await Promise.all([providerTenant(), providerTenant()]);
      const linked = await linkedMember(tenant);
      const ordinary = await createMember(s.stack, tenant);
      const check = (t: Tenant, email: string) =>
        s.api('/idp/check/email', { headers: { resource: t.publicKey }, query: `email=${encodeURIComponent(email)}` });
      expect((await check(tenant, linked.email.toUpperCase())).body).toEqual({ resource_member: true, idp_linked: true });
      expect((await check(tenant, ordinary.email)).body).toEqual({ resource_member: true, idp_linked: false });
      expect((await check(other, ordinary.email)).body).toEqual({ resource_member: false, idp_linked: false });
      expect((await check(tenant, 'nobody@example.test')).body).toEqual({ resource_member: false, idp_linked: false });
    });

    it.each(['', 'email=not-an-email', 'email[]=a@example.test'])('409 invalid_email for ?%s', async (query) => {
      const tenant = await providerTenant();
      const response = await s.api('/idp/check/email', { headers: { resource: tenant.publicKey }, query });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('invalid_email'));
    });
  });

  describe('provider mails', () => {
    it('POST /idp/password-reset answers the same for a known and an unknown email', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser();
      for (const email of [person.email, 'nobody-known@example.test']) {
        const response = await s.api('/idp/password-reset', { method: 'POST', headers: { resource: tenant.publicKey }, json: { email } });
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ status: true });
      }
      const bad = await s.api('/idp/password-reset', { method: 'POST', headers: { resource: tenant.publicKey }, json: { email: 'nope' } });
      expect(bad.body).toEqual(errorBody('invalid_email'));
    });

    it('POST /idp/email-auth-link sends a sign-in link that leads back to the resource host only', async () => {
      const tenant = await providerTenant('news.example.test');
      const person = await idp.createUser();
      const send = (json: unknown) => s.api('/idp/email-auth-link', { method: 'POST', headers: { resource: tenant.publicKey }, json });
      const sent = await send({ email: person.email, continue_url: 'https://news.example.test/welcome' });
      expect(sent.status).toBe(200);
      expect(sent.body).toEqual({ status: true });
      expect((await send({ email: person.email, continue_url: 'https://evil.example/steal' })).body).toEqual(
        errorBody('invalid_continue_url'),
      );
      expect((await send({ email: person.email })).body).toEqual(errorBody('invalid_continue_url'));
      expect((await send({ continue_url: 'https://news.example.test/' })).body).toEqual(errorBody('invalid_email'));
    });
  });

  describe('PUT /idp/docstore/user', () => {
    const put = (tenant: Tenant, token: string | null, json: unknown) =>
      s.api('/idp/docstore/user', { method: 'PUT', headers: { resource: tenant.publicKey, ...(token ? { token } : {}) }, json });

    it("merges fields into the member's document, kept across updates", async () => {
      const tenant = await providerTenant();
      const member = await linkedMember(tenant);
      const first = await put(tenant, member.token, { nickname: 'ada', newsletter: true });
      expect(first.status).toBe(200);
      const userId = (await s.api<{ id: number }>('/user', { headers: { resource: tenant.publicKey, token: member.token } })).body.id;
      expect(first.body).toEqual({
        status: true,
        idp_user_id: member.uid,
        data: { user_id: userId, email: member.email, nickname: 'ada', newsletter: true },
      });
      const second = await put(tenant, member.token, { nickname: null, score: 3 });
      expect(second.body['data']).toEqual({ user_id: userId, email: member.email, nickname: null, newsletter: true, score: 3 });
    });

    it('409 error_fields for bad names, reserved names, nested values and long texts', async () => {
      const tenant = await providerTenant();
      const member = await linkedMember(tenant);
      const response = await put(tenant, member.token, {
        'a.b': 1,
        $set: 1,
        email: 'x@example.test',
        nested: { a: 1 },
        long: 'x'.repeat(1001),
      });
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        error: true,
        error_fields: {
          'a.b': expect.any(String),
          $set: expect.any(String),
          email: 'set by the service',
          nested: expect.any(String),
          long: 'at most 1000 characters',
        },
        req_guid: anyRequestId,
      });
      expect((await put(tenant, member.token, {})).body).toMatchObject({ error: true, error_fields: { fields: expect.any(String) } });
    });

    it('401 auth_failed for a guest, 409 idp_not_linked for an ordinary member, 400 for malformed JSON', async () => {
      const tenant = await providerTenant();
      expect((await put(tenant, null, { a: 1 })).body).toEqual(errorBody('auth_failed'));
      const ordinary = await createMember(s.stack, tenant);
      const signedIn = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: ordinary.email, password: ordinary.password },
      });
      expect((await put(tenant, signedIn.body['token'] as string, { a: 1 })).body).toEqual(errorBody('idp_not_linked'));
      const member = await linkedMember(tenant);
      const malformed = await s.api('/idp/docstore/user', {
        method: 'PUT',
        headers: { resource: tenant.publicKey, token: member.token, 'content-type': 'application/json' },
        raw: '{"a": ',
      });
      expect(malformed.status).toBe(400);
      expect(malformed.body).toEqual(errorBody('incorrect_data'));
    });
  });

  describe('POST /authorization/refresh with provider tokens', () => {
    it('adds idp-token and idp-custom-token for a linked member, omits them otherwise', async () => {
      const tenant = await providerTenant();
      const person = await idp.createUser({ verified: true });
      const member = await createMember(s.stack, tenant, { email: person.email });
      await s.api('/idp/oauth/token', { headers: { resource: tenant.publicKey, 'idp-token': person.idToken }, json: {} });
      const refresh = async (json: Record<string, unknown>) => {
        const signedIn = await s.api('/authorization', {
          headers: { resource: tenant.publicKey },
          json: { email: member.email, password: member.password },
        });
        const body = { refresh_token: signedIn.body['refresh_token'], response_type: 'token', ...json };
        return s.api('/authorization/refresh', { headers: { resource: tenant.publicKey }, json: body });
      };
      const response = await refresh({ with_idp_token: true, with_idp_custom_token: 1 });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ 'idp-token': expect.any(String), 'idp-custom-token': expect.any(String) });
      const verified = await verify(tenant, response.body['idp-token'] as string);
      expect(verified.body).toMatchObject({ idp_user_id: person.uid });
      const plain = await refresh({});
      expect(plain.body).not.toHaveProperty('idp-token');
      expect(plain.body).not.toHaveProperty('idp-custom-token');
    });
  });
});

/** Limits on guessing and on mail (ADR 0051), in a stack of their own with small budgets. */
describe('identity provider per-address limits', () => {
  const s = useStack({ env: { IDP_SIGN_IN_LIMIT_PER_HOUR: '2', IDP_MAIL_LIMIT_PER_HOUR: '1', EMAIL_VALIDATION_LIMIT_PER_HOUR: '1' } });
  const idp = idpEmulator();
  const tooMany = errorBody('too_many_requests');

  it('answers 429 once an address spends its sign-in, mail and email-check budgets', async () => {
    const tenant = await createTenant(s.stack, { settings: idp.settings() });
    const headers = { resource: tenant.publicKey };
    const signIn = () => s.api('/idp/sign-in', { method: 'POST', headers, json: { email: 'guess@example.test', password: 'guess' } });
    expect((await signIn()).status).toBe(400);
    expect((await signIn()).status).toBe(400);
    const blocked = await signIn();
    expect(blocked.status).toBe(429);
    expect(blocked.body).toEqual(tooMany);

    const reset = () => s.api('/idp/password-reset', { method: 'POST', headers, json: { email: 'someone@example.test' } });
    expect((await reset()).status).toBe(200);
    expect((await reset()).body).toEqual(tooMany);

    const check = () => s.api('/idp/check/email', { headers, query: 'email=someone@example.test' });
    expect((await check()).status).toBe(200);
    expect((await check()).body).toEqual(tooMany);
  });
});
