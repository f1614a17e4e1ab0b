import { randomUUID } from 'node:crypto';
import { createVerifier } from '@masthead/entitlements';
import { createTenant, type Tenant } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInMember } from './member-session.js';
import { LocalOidcProvider } from './oidc-provider.js';
import { anyIsoDate, anyRequestId, anySessionCredentials, anyToken, collectEvents, eventWhere, useStack } from './support.js';

/** Social sign-in and linking (document 1, sections B and C; docs/adr/0066). */
describe('social sign-in and linking', () => {
  const provider = new LocalOidcProvider();
  // Filled before the stack starts: useStack reads its options in its own beforeAll, which runs after this one.
  const env: Record<string, string> = {};
  beforeAll(async () => {
    await provider.start();
    env['SOCIAL_PROVIDERS'] = JSON.stringify({
      acme: { issuer: provider.issuer, jwks_url: provider.jwksUrl, audiences: ['another-client', provider.audience] },
      ecme: { issuer: provider.issuer, jwks_url: provider.jwksUrl, audiences: [provider.audience], algorithms: ['ES256'] },
      // Nothing listens on port 1: a provider whose key set cannot be fetched.
      offline: { issuer: provider.issuer, jwks_url: 'http://127.0.0.1:1/jwks', audiences: [provider.audience] },
    });
  });
  afterAll(() => provider.stop());
  const s = useStack({ env });

  const errorBody = (error: string) => ({ error, error_description: expect.any(String), req_guid: anyRequestId });

  const signedIn = (tenant?: Tenant) => signedInMember(s, tenant);

  /** A member with the identity `sub` of provider acme linked. */
  async function linked(sub = `sub-${randomUUID()}`) {
    const member = await signedIn();
    const response = await s.api('/user/social', {
      method: 'PUT',
      headers: member.headers,
      json: { provider: 'acme', id_token: provider.token(provider.claims(sub)) },
    });
    expect(response.status).toBe(200);
    return { ...member, sub };
  }

  const socialSignIn = (tenant: Tenant, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    s.api('/social-authorization', { headers: { resource: tenant.publicKey, ...headers }, json: body });

  describe('PUT /user/social', () => {
    it('links a verified identity and lists the member links', async () => {
      const { headers } = await signedIn();
      const sub = `sub-${randomUUID()}`;
      const response = await s.api('/user/social', {
        method: 'PUT',
        headers,
        json: { provider: ' ACME ', id_token: provider.token(provider.claims(sub)) },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items: [{ provider: 'acme', sub, email: `${sub}@mail.example.test`, linked_at: anyIsoDate }] });
      // Linking again is no error and changes nothing.
      const again = await s.api('/user/social', {
        method: 'PUT',
        headers,
        form: { provider: 'acme', id_token: provider.token(provider.claims(sub)) },
      });
      expect(again.status).toBe(200);
      expect(again.body).toEqual(response.body);
    });

    it('keeps one identity per provider: a new one replaces the old', async () => {
      const { headers, sub, tenant } = await linked();
      const next = `sub-${randomUUID()}`;
      const response = await s.api('/user/social', {
        method: 'PUT',
        headers,
        json: { provider: 'acme', id_token: provider.token(provider.claims(next, { email: undefined })) },
      });
      expect(response.body).toEqual({ items: [{ provider: 'acme', sub: next, email: null, linked_at: anyIsoDate }] });
      const old = await socialSignIn(tenant, { provider: 'acme', id_token: provider.token(provider.claims(sub)) });
      expect(old.status).toBe(401);
    });

    it('refuses an identity another member holds with 409 social_already_linked', async () => {
      const { sub } = await linked();
      const { headers } = await signedIn();
      const response = await s.api('/user/social', {
        method: 'PUT',
        headers,
        json: { provider: 'acme', id_token: provider.token(provider.claims(sub)) },
      });
      expect(response.status).toBe(409);
      expect(response.body).toEqual(errorBody('social_already_linked'));
    });

    it('lets exactly one of two members racing for one identity win', async () => {
      const [one, two] = await Promise.all([signedIn(), signedIn()]);
      const token = provider.token(provider.claims(`sub-${randomUUID()}`));
      const responses = await Promise.all(
        [one, two].map((member) =>
          s.api('/user/social', { method: 'PUT', headers: member.headers, json: { provider: 'acme', id_token: token } }),
        ),
      );
      expect(responses.map((response) => response.status).sort()).toEqual([200, 409]);
    });

    it('refuses missing input and unknown providers with 409', async () => {
      const { headers } = await signedIn();
      const token = provider.token(provider.claims('x'));
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ id_token: token }, 'invalid_provider'],
        [{ provider: 'nobody', id_token: token }, 'invalid_provider'],
        [{ provider: 'acme:x', id_token: token }, 'invalid_provider'],
        [{ provider: 42, id_token: token }, 'invalid_provider'],
        [{ provider: 'acme' }, 'invalid_id_token'],
        [{ provider: 'acme', id_token: '   ' }, 'invalid_id_token'],
        [{ provider: 'acme', id_token: 'x'.repeat(20_000) }, 'invalid_id_token'],
        [{ provider: 'acme', id_token: ['a'] }, 'invalid_id_token'],
      ];
      for (const [json, error] of cases) {
        const response = await s.api('/user/social', { method: 'PUT', headers, json });
        expect({ json: Object.keys(json), status: response.status, body: response.body }).toEqual({
          json: Object.keys(json),
          status: 409,
          body: errorBody(error),
        });
      }
    });

    it('needs a member session', async () => {
      const tenant = await createTenant(s.stack);
      for (const [method, path] of [
        ['PUT', '/user/social'],
        ['POST', '/user/social/delete'],
      ] as const) {
        const response = await s.api(path, { method, headers: { resource: tenant.publicKey }, json: { provider: 'acme' } });
        expect(response.status).toBe(401);
        expect(response.body).toEqual(errorBody('auth_failed'));
      }
    });
  });

  describe('ID token verification', () => {
    const now = () => Math.floor(Date.now() / 1000);
    // Each case: a token that must never sign anyone in or link anything.
    const refused: Array<[string, (sub: string) => string]> = [
      ['wrong issuer', (sub) => provider.token(provider.claims(sub, { iss: 'https://evil.example.test' }))],
      ['wrong audience', (sub) => provider.token(provider.claims(sub, { aud: 'someone-else' }))],
      ['foreign authorized party', (sub) => provider.token(provider.claims(sub, { azp: 'someone-else' }))],
      ['expired', (sub) => provider.token(provider.claims(sub, { iat: now() - 7200, exp: now() - 3600 }))],
      ['not yet valid', (sub) => provider.token(provider.claims(sub, { nbf: now() + 3600 }))],
      ['without exp', (sub) => provider.token(provider.claims(sub, { exp: undefined }))],
      ['bad signature', (sub) => provider.token(provider.claims(sub), { key: provider.stranger, header: { kid: provider.rsa.kid } })],
      ['unknown kid', (sub) => provider.token(provider.claims(sub), { key: provider.stranger })],
      ['alg none', (sub) => provider.token(provider.claims(sub), { unsigned: true })],
      [
        'HS256 keyed with the public key',
        (sub) => provider.token(provider.claims(sub), { hmacSecret: JSON.stringify(provider.rsa.publicKey.export({ format: 'jwk' })) }),
      ],
      ['an algorithm the provider does not allow', (sub) => provider.token(provider.claims(sub), { key: provider.ec })],
      ['not a JWT', () => 'not.a.jwt'],
      [
        'tampered claims',
        (sub) => {
          const [header, , signature] = provider.token(provider.claims(sub)).split('.');
          return [header, Buffer.from(JSON.stringify(provider.claims(`${sub}-other`))).toString('base64url'), signature].join('.');
        },
      ],
    ];

    it.each(refused)('refuses %s: 409 verify_failed on linking, 401 authorization_fail on sign-in', async (_name, makeToken) => {
      const { headers, tenant, sub } = await linked();
      const link = await s.api('/user/social', {
        method: 'PUT',
        headers,
        json: { provider: 'acme', id_token: makeToken(`sub-${randomUUID()}`) },
      });
      expect(link.status).toBe(409);
      expect(link.body).toEqual(errorBody('verify_failed'));
      // The linked identity's own sub: only the token's flaw can be the reason for refusing.
      const signIn = await socialSignIn(tenant, { provider: 'acme', id_token: makeToken(sub) });
      expect(signIn.status).toBe(401);
      expect(signIn.body).toEqual(errorBody('authorization_fail'));
    });

    it('answers 503 social_provider_unavailable while the key set cannot be fetched', async () => {
      const { headers, tenant } = await signedIn();
      const id_token = provider.token(provider.claims(`sub-${randomUUID()}`));
      const link = await s.api('/user/social', { method: 'PUT', headers, json: { provider: 'offline', id_token } });
      const signIn = await socialSignIn(tenant, { provider: 'offline', id_token });
      for (const response of [link, signIn]) {
        expect(response.status).toBe(503);
        expect(response.body).toEqual(errorBody('social_provider_unavailable'));
      }
    });

    it('accepts ES256 where the provider allows it, and a second configured audience', async () => {
      const { headers } = await signedIn();
      const sub = `sub-${randomUUID()}`;
      const response = await s.api('/user/social', {
        method: 'PUT',
        headers,
        json: { provider: 'ecme', id_token: provider.token(provider.claims(sub, { aud: [provider.audience, 'x'] }), { key: provider.ec }) },
      });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items: [{ provider: 'ecme', sub, email: expect.any(String), linked_at: anyIsoDate }] });
    });
  });

  describe('POST /social-authorization', () => {
    it('signs a linked member in and returns the whole session result', async () => {
      const { tenant, member, sub } = await linked();
      const response = await socialSignIn(tenant, { provider: 'acme', id_token: provider.token(provider.claims(sub)) });
      expect(response.status).toBe(200);
      // The user projection of the session result is GET /user's (without a resource), field for field.
      const token = response.body['token'] as string;
      const profile = await s.api('/user', { headers: { token } });
      expect(profile.body['id']).toBe(member.id);
      expect(response.body).toEqual({
        ...profile.body,
        ...anySessionCredentials(),
        subscriptions: [],
        teams: [],
      });
      const user = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect(user.status).toBe(200);
      // Beyond the spec (docs/adr/0246): the member's entitlement token, signed with the published keys.
      const verifier = createVerifier({ resource: tenant.publicKey, jwksUrl: `${s.stack.gatewayUrl}/.well-known/jwks.json` });
      expect(await verifier.verify(response.body['entitlement_token'] as string)).toMatchObject({
        sub: String(member.id),
        sid: String(response.body['session_id']),
      });
    });

    it('takes form fields over JSON, and the code response types of POST /authorization', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example.test' });
      const member = await signedIn(tenant);
      const sub = `sub-${randomUUID()}`;
      await s.api('/user/social', {
        method: 'PUT',
        headers: member.headers,
        json: { provider: 'acme', id_token: provider.token(provider.claims(sub)) },
      });
      const response = await s.api('/social-authorization', {
        method: 'POST',
        headers: { resource: tenant.publicKey },
        form: {
          provider: 'acme',
          id_token: provider.token(provider.claims(sub)),
          response_type: 'code',
          redirect_uri: 'https://news.example.test/back',
        },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: member.member.id, code: anyToken, redirect_uri: 'https://news.example.test/back' });
      expect(response.body['token']).toBeUndefined();
      const elsewhere = await socialSignIn(tenant, {
        provider: 'acme',
        id_token: provider.token(provider.claims(sub)),
        response_type: 'code',
        redirect_uri: 'https://evil.example.test/',
      });
      expect(elsewhere.status).toBe(409);
      expect(elsewhere.body).toEqual(errorBody('invalid_redirect_uri'));
    });

    it('signs in through any resource and joins the member to it', async () => {
      const { member, sub } = await linked();
      const other = await createTenant(s.stack);
      const response = await socialSignIn(other, { provider: 'acme', id_token: provider.token(provider.claims(sub)) });
      expect(response.status).toBe(200);
      expect(response.body['id']).toBe(member.id);
      const relationship = await s
        .db('identity')
        .collection('relationships')
        .findOne({ _id: `${other.resourceId}:${member.id}` as never });
      expect(relationship?.['status']).toBe('active');
    });

    it('records the login event', async () => {
      const { tenant, member, sub } = await linked();
      const events = collectEvents(s.nats, 'user_login');
      await s.nats.flush();
      const guestSession = `guest-${randomUUID()}`;
      const response = await socialSignIn(
        tenant,
        { provider: 'acme', id_token: provider.token(provider.claims(sub)) },
        { session: guestSession, 'source-type': 'social' },
      );
      expect(await eventWhere(events, 'guest_session', guestSession)).toMatchObject({
        name: 'user_login',
        source: 'identity',
        resource_id: tenant.resourceId,
        payload: { user_id: member.id, session_id: response.body['session_id'], source_type: 'social', guest_session: guestSession },
      });
    });

    it('answers an identity nobody linked like any refusal: 401 authorization_fail', async () => {
      const tenant = await createTenant(s.stack);
      const response = await socialSignIn(tenant, { provider: 'acme', id_token: provider.token(provider.claims(`sub-${randomUUID()}`)) });
      expect(response.status).toBe(401);
      expect(response.body).toEqual(errorBody('authorization_fail'));
    });

    it('refuses locked, suspended and inactive members with 401 authorization_fail', async () => {
      const identity = s.db('identity');
      const arrange = {
        locked: (tenant: Tenant, userId: number) =>
          identity
            .collection('relationships')
            .updateOne({ _id: `${tenant.resourceId}:${userId}` as never }, { $set: { status: 'locked' } }),
        suspended: (tenant: Tenant, userId: number) =>
          identity
            .collection('relationships')
            .updateOne({ _id: `${tenant.resourceId}:${userId}` as never }, { $set: { status: 'suspended' } }),
        inactive: (_tenant: Tenant, userId: number) =>
          identity.collection('users').updateOne({ _id: userId as never }, { $set: { active: false } }),
      };
      for (const [state, apply] of Object.entries(arrange)) {
        const { tenant, member, sub } = await linked();
        await apply(tenant, member.id);
        const response = await socialSignIn(tenant, { provider: 'acme', id_token: provider.token(provider.claims(sub)) });
        expect({ state, status: response.status, body: response.body }).toEqual({
          state,
          status: 401,
          body: errorBody('authorization_fail'),
        });
      }
    });

    it('refuses missing input with 409 and needs a resource', async () => {
      const tenant = await createTenant(s.stack);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{}, 'invalid_provider'],
        [{ provider: 'unknown', id_token: 'x' }, 'invalid_provider'],
        [{ provider: 'acme' }, 'invalid_id_token'],
        [{ provider: 'acme', id_token: provider.token(provider.claims('x')), response_type: 'bogus' }, 'invalid_response_type'],
      ];
      for (const [json, error] of cases) {
        const response = await socialSignIn(tenant, json);
        expect({ json, status: response.status, body: response.body }).toEqual({ json, status: 409, body: errorBody(error) });
      }
      const malformed = await s.api('/social-authorization', {
        headers: { resource: tenant.publicKey, 'content-type': 'application/json' },
        raw: '{"provider":',
      });
      expect(malformed.status).toBe(409);
      expect(malformed.body).toEqual(errorBody('invalid_provider'));
      const noResource = await s.api('/social-authorization', { json: { provider: 'acme', id_token: 'x' } });
      expect(noResource.status).toBe(404);
      expect(noResource.body).toEqual(errorBody('resource_not_exists'));
    });
  });

  describe('POST /user/social/delete', () => {
    it('unlinks the identity: it no longer signs in, and unlinking again is no error', async () => {
      const { headers, tenant, sub } = await linked();
      const response = await s.api('/user/social/delete', { method: 'POST', headers, json: { provider: 'acme' } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({ items: [] });
      const signIn = await socialSignIn(tenant, { provider: 'acme', id_token: provider.token(provider.claims(sub)) });
      expect(signIn.status).toBe(401);
      const again = await s.api('/user/social/delete', { method: 'POST', headers, form: { provider: 'acme' } });
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ items: [] });
    });

    it('keeps the links of other providers, and refuses a missing provider with 409', async () => {
      const { headers, sub } = await linked();
      await s.api('/user/social', {
        method: 'PUT',
        headers,
        json: { provider: 'ecme', id_token: provider.token(provider.claims(sub), { key: provider.ec }) },
      });
      const response = await s.api('/user/social/delete', { method: 'POST', headers, json: { provider: 'acme' } });
      expect(response.body).toEqual({ items: [{ provider: 'ecme', sub, email: expect.any(String), linked_at: anyIsoDate }] });
      const missing = await s.api('/user/social/delete', { method: 'POST', headers, json: {} });
      expect(missing.status).toBe(409);
      expect(missing.body).toEqual(errorBody('invalid_provider'));
    });
  });
});
