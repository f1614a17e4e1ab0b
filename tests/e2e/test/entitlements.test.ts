import { createVerifier, EntitlementTokenRefused, type EntitlementClaims, type RefusalReason, type Verifier } from '@masthead/entitlements';
import { paywall } from '@masthead/entitlements/examples/edge-paywall';
import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { catalogKit, type Json } from './catalog-support.js';
import { anyEntitlementToken, anyRequestId, eventually, useStack } from './support.js';
import { ticketingKit } from './ti-events-support.js';

const EXTERNAL_ACTIONS = ['POST /integrations/external/subscription', 'PUT /integrations/external/refund'];

/**
 * Entitlement tokens at the edge (docs/adr/0246–0248), through the gateway: the published key set,
 * the token in every answer that starts or renews a session and from POST /user/entitlement-token,
 * verified with @masthead/entitlements against the stack's own key set, carrying what the member
 * really holds, and refused once the member is suspended, the session compromised or the
 * membership refunded. The profile cache is on, as in production: a change must reach the next
 * token through the cache's events, not its expiry.
 */
describe('entitlement tokens', () => {
  const s = useStack({ env: { PROFILE_CACHE_TTL_MS: '60000' } });
  const kit = catalogKit(s);
  const ticketing = ticketingKit(s);
  const jwksUrl = () => `${s.stack.gatewayUrl}/.well-known/jwks.json`;
  const revocationsUrl = () => `${s.stack.baseUrl}/entitlement-revocations`;
  const verifierOf = (tenant: Pick<Tenant, 'publicKey'>, revocations = false): Verifier =>
    createVerifier({
      resource: tenant.publicKey,
      jwksUrl: jwksUrl(),
      issuer: 'masthead',
      ...(revocations ? { revocationsUrl: revocationsUrl() } : {}),
    });
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });

  async function refusalOf(verification: Promise<unknown>): Promise<RefusalReason> {
    try {
      await verification;
    } catch (caught) {
      if (caught instanceof EntitlementTokenRefused) return caught.reason;
      throw caught;
    }
    throw new Error('the token was accepted');
  }

  const signIn = async (tenant: Pick<Tenant, 'publicKey'>, member: { email: string; password: string }, fields: Json = {}) => {
    const response = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { ...member, ...fields } });
    expect(response.status).toBe(200);
    return response.body;
  };
  const newToken = (tenant: Pick<Tenant, 'publicKey'>, token: string) =>
    s.api('/user/entitlement-token', { method: 'POST', headers: { resource: tenant.publicKey, token } });

  /**
   * A resource selling `premium`, a member holding it until `endsAt`, and a pass of an event that
   * another member bought and assigned to the member; then the member signs in (its first view).
   */
  async function premiumMember(endsAt = new Date(Date.now() + 30 * 86_400_000)) {
    const tenant = await ticketing.tenant();
    const plan = await kit.plan(tenant, 'premium', { title: 'Premium' });
    const pricing = await kit.pricing(plan.id, 'Monthly');
    const member = await createMember(s.stack, tenant);
    await s.stack.operator.memberships.grantMembership({
      resourceId: tenant.resourceId,
      userId: member.id,
      pricingId: pricing.id,
      autorenew: false,
      endDate: endsAt.toISOString(),
    });
    const event = await ticketing.event(tenant, 'Launch');
    const ticket = await ticketing.ticket(event.id, 'General');
    const buyer = await kit.signedInMember(tenant);
    const [passId] = await ticketing.buy(tenant, ticket.id, buyer.id);
    const assigned = await s.api(`/user/pass/${passId}/assign`, {
      method: 'PUT',
      headers: { resource: tenant.publicKey, token: buyer.token },
      json: { assign_id: member.id },
    });
    expect(assigned.status).toBe(200);
    const session = await signIn(tenant, member);
    return { tenant, plan, pricing, member, event, ticket, passId: passId!, session };
  }

  /** Polls until the revocation list refuses the token as revoked (its entry is written after the change answered). */
  const revokedByList = (tenant: Pick<Tenant, 'publicKey'>, token: string) =>
    eventually(async () => {
      try {
        await verifierOf(tenant, true).verify(token);
        return undefined;
      } catch (caught) {
        if (caught instanceof EntitlementTokenRefused && caught.reason === 'revoked') return true;
        throw caught;
      }
    });

  describe('the published key set', () => {
    it('serves the public keys at the well-known path and under /api/v1, with a Cache-Control an edge can follow', async () => {
      const root = await fetch(jwksUrl());
      const api = await fetch(`${s.stack.baseUrl}/.well-known/jwks.json`);
      expect([root.status, api.status]).toEqual([200, 200]);
      // A token lifetime of 15 minutes: the set may be kept two (docs/adr/0247).
      expect(root.headers.get('cache-control')).toBe('public, max-age=120');
      const body = (await root.json()) as { keys: Json[] };
      expect(await api.json()).toEqual(body);
      expect(body.keys).toEqual([
        { kty: 'OKP', crv: 'Ed25519', x: expect.stringMatching(/^[\w-]{43}$/), kid: expect.any(String), alg: 'EdDSA', use: 'sig' },
      ]);
    });

    it('never lets a private key out: the stored one is sealed, and no answer carries it', async () => {
      const [stored] = await s.db('identity').collection('signing_keys').find().toArray();
      expect(stored?.['private_key']).toEqual({
        key_id: 'dev',
        iv: expect.any(String),
        tag: expect.any(String),
        ciphertext: expect.any(String),
      });
      expect(JSON.stringify(stored)).not.toMatch(/PRIVATE KEY/);
      const text = await (await fetch(jwksUrl())).text();
      expect(text).not.toMatch(/"d"|PRIVATE/);
    });
  });

  describe('the token in every answer that starts or renews a session', () => {
    it('lists what the member holds and verifies against the published key set: sign-in, refresh, code exchange, POST /user/entitlement-token', async () => {
      const endsAt = new Date(Date.now() + 10 * 60_000);
      const { tenant, plan, pricing, member, event, ticket, passId, session } = await premiumMember(endsAt);
      const verifier = verifierOf(tenant);
      const expected = (sessionId: unknown): Partial<EntitlementClaims> => ({
        iss: 'masthead',
        aud: tenant.publicKey,
        sub: String(member.id),
        sid: String(sessionId),
        plans: [{ id: plan.id, slug: 'premium', pricing_id: pricing.id }],
        team_plans: [],
        passes: [{ id: passId, event_id: event.id, ticket_id: ticket.id }],
      });
      const verified = async (token: unknown, sessionId: unknown) => {
        const claims = await verifier.verify(token as string);
        expect(claims).toMatchObject(expected(sessionId));
        expect(claims.nbf).toBe(claims.iat);
        // Never past the membership's end (ten minutes away), which is sooner than a lifetime.
        expect(claims.exp).toBe(Math.floor(endsAt.getTime() / 1000));
        return claims;
      };

      expect(session['entitlement_token']).toEqual(anyEntitlementToken);
      await verified(session['entitlement_token'], session['session_id']);

      // The default refresh answers a code beside the tokens; the code is exchanged for more.
      const refreshed = await s.api('/authorization/refresh', {
        headers: { resource: tenant.publicKey },
        json: { refresh_token: session['refresh_token'] },
      });
      expect(refreshed.status).toBe(200);
      await verified(refreshed.body['entitlement_token'], session['session_id']);

      const exchanged = await s.api('/oauth/token', { headers: { resource: tenant.publicKey }, json: { code: refreshed.body['code'] } });
      expect(exchanged.status).toBe(200);
      await verified(exchanged.body['entitlement_token'], session['session_id']);

      const issued = await newToken(tenant, session['token'] as string);
      expect(issued.status).toBe(200);
      expect(issued.body).toEqual({ entitlement_token: anyEntitlementToken, expires: Math.floor(endsAt.getTime() / 1000) });
      await verified(issued.body['entitlement_token'], session['session_id']);
    });

    it('gives a token of a lifetime (15 minutes) to a membership without an end, and one to a new registration', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const session = await signIn(tenant, member);
      const claims = await verifierOf(tenant).verify(session['entitlement_token'] as string);
      expect(claims.exp - claims.iat).toBe(900);
      expect(claims).toMatchObject({ plans: [], team_plans: [], passes: [] });
      const registered = await s.api('/registration', {
        headers: { resource: tenant.publicKey },
        json: { email: `new-${Date.now()}@example.test`, password: 'A-long-enough-passphrase-1' },
      });
      expect(registered.status).toBe(201);
      expect((await verifierOf(tenant).verify(registered.body['entitlement_token'] as string)).sub).toBe(String(registered.body['id']));
    });

    it('leaves it out where no session token is handed out (response type code), and without a resource', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const member = await createMember(s.stack, tenant);
      const coded = await signIn(tenant, member, { response_type: 'code', redirect_uri: 'https://news.example/cb' });
      expect(coded['code']).toBeDefined();
      expect(coded).not.toHaveProperty('entitlement_token');
      const anywhere = await s.api('/authorization', { json: { email: member.email, password: member.password } });
      expect(anywhere.status).toBe(200);
      expect(anywhere.body).not.toHaveProperty('entitlement_token');
    });

    it('is refused for another resource, and names only the resource it was issued in', async () => {
      const { tenant, session } = await premiumMember();
      const other = await createTenant(s.stack);
      expect((await verifierOf(tenant).verify(session['entitlement_token'] as string)).aud).toBe(tenant.publicKey);
      expect(await refusalOf(verifierOf(other).verify(session['entitlement_token'] as string))).toBe('wrong_resource');
    });

    it('opens a protected path through the worked edge example, against the stack itself', async () => {
      const { tenant, session } = await premiumMember();
      const plain = await createTenant(s.stack);
      const reader = await signIn(plain, await createMember(s.stack, plain));
      const edge = (resource: string) =>
        paywall({
          mastheadOrigin: s.stack.gatewayUrl,
          resource,
          protectedPrefix: '/premium/',
          plan: 'premium',
          origin: async () => new Response('the article'),
        });
      const ask = (resource: string, token: unknown) =>
        edge(resource)(new Request('https://news.example/premium/story', { headers: { authorization: `Bearer ${String(token)}` } }));
      const allowed = await ask(tenant.publicKey, session['entitlement_token']);
      expect([allowed.status, await allowed.text()]).toEqual([200, 'the article']);
      expect((await ask(plain.publicKey, reader['entitlement_token'])).status).toBe(403);
    });
  });

  describe('revocation', () => {
    it('a suspended member gets no new token, and the revocation list refuses the old one at once', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const session = await signIn(tenant, member);
      const token = session['token'] as string;
      const old = session['entitlement_token'] as string;
      expect((await verifierOf(tenant, true).verify(old)).sub).toBe(String(member.id));
      const suspended = await s.api('/user/suspend', { method: 'POST', headers: { resource: tenant.publicKey, token } });
      expect(suspended.status).toBe(200);
      const refused = await newToken(tenant, token);
      expect([refused.status, refused.body]).toEqual([401, error('auth_access_fail')]);
      const refresh = await s.api('/authorization/refresh', {
        headers: { resource: tenant.publicKey },
        json: { refresh_token: session['refresh_token'], response_type: 'token' },
      });
      expect(refresh.status).toBe(401);
      // Without the list, the old token lives out its lifetime: the documented bound.
      expect((await verifierOf(tenant).verify(old)).sub).toBe(String(member.id));
      await revokedByList(tenant, old);
    });

    it('a compromised session gets no new token, and the list names its session', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const session = await signIn(tenant, member);
      const refresh = (json: Json) =>
        s.api('/authorization/refresh', {
          headers: { resource: tenant.publicKey },
          json: { refresh_token: session['refresh_token'], ...json },
        });
      expect((await refresh({ response_type: 'token' })).status).toBe(200);
      expect((await refresh({ response_type: 'token', reusable_refresh: true })).body['error']).toBe('token_compromised');
      const refused = await newToken(tenant, session['token'] as string);
      expect([refused.status, refused.body['error']]).toEqual([401, 'token_compromised']);
      const list = await s.api('/entitlement-revocations', { headers: { resource: tenant.publicKey } });
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ revocation_list: anyEntitlementToken, max_age: 30 });
      await revokedByList(tenant, session['entitlement_token'] as string);
    });

    it('after a refund the next token lists the plan no more, and the list refuses the tokens from before', async () => {
      const tenant = await createTenant(s.stack);
      const plan = await kit.plan(tenant, 'app', { title: 'App' });
      await kit.pricing(plan.id, 'Yearly', { price: 4999, period: '1 year', externalSourceIds: 'com.news.yearly' });
      const member = await createMember(s.stack, tenant);
      const { key } = await s.stack.operator.serviceAccounts.createServiceAccount({
        resourceId: tenant.resourceId,
        title: 'App store back end',
        fullAccess: false,
        grants: EXTERNAL_ACTIONS,
      });
      const store = (method: string, path: string, json: Json) =>
        s.api(path, { method, headers: { resource: tenant.publicKey, 'service-api-key': key }, json });
      const bought = await store('POST', '/integrations/external/subscription', {
        user_id: member.id,
        transaction_id: 'refunded-1',
        external_source_id: 'com.news.yearly',
      });
      expect(bought.status).toBe(201);
      const session = await signIn(tenant, member);
      const before = session['entitlement_token'] as string;
      expect((await verifierOf(tenant).verify(before)).plans.map((held) => held.slug)).toEqual(['app']);
      // Warm: the profile cache holds the view with the membership.
      expect(
        (await verifierOf(tenant).verify((await newToken(tenant, session['token'] as string)).body['entitlement_token'] as string)).plans,
      ).toHaveLength(1);

      const refunded = await store('PUT', '/integrations/external/refund', {
        user_id: member.id,
        transaction_id: 'refunded-1',
        refund_id: 'r-1',
      });
      expect(refunded.status).toBe(200);
      const after = await eventually(async () => {
        const claims = await verifierOf(tenant).verify(
          (await newToken(tenant, session['token'] as string)).body['entitlement_token'] as string,
        );
        return claims.plans.length === 0 ? claims : undefined;
      }, 5_000);
      expect(after.plans).toEqual([]);
      await revokedByList(tenant, before);
      // A token issued in a later second than the refund passes the list.
      const fresh = await eventually(async () => {
        const token = (await newToken(tenant, session['token'] as string)).body['entitlement_token'] as string;
        return (await verifierOf(tenant, true)
          .verify(token)
          .catch(() => undefined))
          ? token
          : undefined;
      });
      expect((await verifierOf(tenant, true).verify(fresh)).plans).toEqual([]);
    });
  });
});
