import { randomUUID } from 'node:crypto';
import { createMember, createTenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { anyRequestId, anySessionCredentials, anyToken, blankUserProjection, collectEvents, eventually, useStack } from './support.js';

/** POST /authorization (document 1, section B). */
describe('POST /authorization', () => {
  const s = useStack();

  it('signs a member in and returns the whole session result', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const before = Math.floor(Date.now() / 1000);
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      ...blankUserProjection(member.id, member.email),
      ...anySessionCredentials(),
      subscriptions: [],
      teams: [],
    });
    expect(response.body['token']).not.toBe(response.body['refresh_token']);
    expect(response.body['expires'] as number).toBeGreaterThan(before + 3600);
    const user = await s.api('/user', { headers: { resource: tenant.publicKey, token: response.body['token'] as string } });
    expect(user.status).toBe(200);
    expect(user.body['id']).toBe(member.id);
  });

  it('stores only hashes of the session and refresh tokens', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    const token = response.body['token'] as string;
    const refresh = response.body['refresh_token'] as string;
    const identity = s.db('identity');
    for (const name of ['session_tokens', 'refresh_tokens', 'sessions']) {
      const dump = JSON.stringify(await identity.collection(name).find().toArray());
      expect(dump).not.toContain(token);
      expect(dump).not.toContain(refresh);
    }
    const stored = await identity.collection('users').findOne({ _id: member.id as never });
    expect(stored?.['password_hash']).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
  });

  it('accepts form fields like JSON', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      form: { email: ` ${member.email.toUpperCase()} `, password: member.password },
    });
    expect(response.status).toBe(200);
    expect(response.body['email']).toBe(member.email);
  });

  it('signs in without a resource in the default token mode', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const response = await s.api('/authorization', { json: { email: member.email, password: member.password } });
    expect(response.status).toBe(200);
    expect(response.body['subscriptions']).toEqual([]);
  });

  it('records a login event on NATS', async () => {
    const tenant = await createTenant(s.stack);
    const member = await createMember(s.stack, tenant);
    const events = collectEvents(s.nats, 'user_login');
    await s.nats.flush();
    // Stacks of other test files publish on the same NATS with colliding IDs: the guest session tells ours apart.
    const guestSession = `guest-${randomUUID()}`;
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey, 'source-type': 'ios-app', session: guestSession },
      json: { email: member.email, password: member.password },
    });
    const event = await eventually(async () =>
      events.find((candidate) => (candidate['payload'] as Record<string, unknown>)['guest_session'] === guestSession),
    );
    expect(event).toMatchObject({
      name: 'user_login',
      source: 'identity',
      resource_id: tenant.resourceId,
      payload: { user_id: member.id, session_id: response.body['session_id'], source_type: 'ios-app', guest_session: guestSession },
    });
    expect(JSON.stringify(event)).not.toContain(member.password);
  });

  it('attaches the resource default membership to a member joining the resource', async () => {
    const tenant = await createTenant(s.stack);
    const plan = await s.stack.operator.plans.upsertPlan({
      resourceId: tenant.resourceId,
      slug: 'free',
      title: 'Free',
      active: true,
      private: false,
      fullAccess: false,
    });
    // A decoy first, so that the Pricing ID and the membership ID cannot coincide by counter.
    await s.stack.operator.pricings.upsertPricing({
      planId: plan.id,
      title: 'Decoy',
      price: 1,
      currency: 'USD',
      period: '1 year',
      active: false,
      private: true,
      externalSourceIds: '',
    });
    const pricing = await s.stack.operator.pricings.upsertPricing({
      planId: plan.id,
      title: 'Free',
      price: 0,
      currency: 'USD',
      period: '1 year',
      active: true,
      private: false,
      externalSourceIds: '',
    });
    await s.stack.operator.accounts.upsertResource({
      publicKey: tenant.publicKey,
      title: 'With default',
      host: 'example.test',
      partnerId: tenant.partnerId,
      settings: { default_subscription_id: pricing.id },
      allowedOrigins: [],
    });
    // A member of another resource joins this one by signing in here.
    const elsewhere = await createTenant(s.stack);
    const member = await createMember(s.stack, elsewhere);
    const response = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(response.status).toBe(200);
    const subscriptions = response.body['subscriptions'] as Array<Record<string, unknown>>;
    expect(subscriptions).toHaveLength(1);
    expect(subscriptions[0]).toMatchObject({
      id: pricing.id,
      plan_id: plan.id,
      title: 'Free',
      public: true,
      next_subscription: null,
      autorenew: false,
    });
    const membership = await s.db('catalog').collection('memberships').findOne({ user_id: member.id });
    expect(subscriptions[0]!['user_subscription_id']).toBe(membership?._id);
    expect(subscriptions[0]!['user_subscription_id']).not.toBe(pricing.id);
    const again = await s.api('/authorization', {
      headers: { resource: tenant.publicKey },
      json: { email: member.email, password: member.password },
    });
    expect(again.body['subscriptions']).toHaveLength(1);
  });

  describe('documented errors', () => {
    const expectError = (response: { status: number; body: unknown }, status: number, error: string) => {
      expect(response.status).toBe(status);
      expect(response.body).toEqual({ error, error_description: expect.any(String), req_guid: anyRequestId });
    };

    it.each([
      [{}, 'invalid_email'],
      [{ email: 'not-an-email', password: 'x' }, 'invalid_email'],
      [{ email: ['a@b.test'], password: 'x' }, 'invalid_email'],
      [{ email: 'a@b.test' }, 'invalid_password'],
      [{ email: 'a@b.test', password: '' }, 'invalid_password'],
      [{ email: 'a@b.test', password: 12345678 }, 'invalid_password'],
      [{ email: 'a@b.test', password: 'x', response_type: 'id_token' }, 'invalid_response_type'],
    ])('%j → 409 %s', async (body, error) => {
      const tenant = await createTenant(s.stack);
      expectError(await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: body }), 409, error);
    });

    it('gives the same answer for an unknown email and a wrong password', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      const unknown = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: 'nobody@example.test', password: member.password },
      });
      const wrong = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: member.email, password: `${member.password}x` },
      });
      expectError(unknown, 401, 'authorization_fail');
      expectError(wrong, 401, 'authorization_fail');
      expect({ ...(unknown.body as object), req_guid: null }).toEqual({ ...(wrong.body as object), req_guid: null });
    });

    it('verifies the password exactly as received (no trimming)', async () => {
      const tenant = await createTenant(s.stack);
      const member = await createMember(s.stack, tenant);
      expectError(
        await s.api('/authorization', {
          headers: { resource: tenant.publicKey },
          json: { email: member.email, password: ` ${member.password} ` },
        }),
        401,
        'authorization_fail',
      );
    });

    it('refuses an inactive account and a locked or suspended relationship with authorization_fail', async () => {
      const tenant = await createTenant(s.stack);
      const inactive = await createMember(s.stack, tenant);
      await s
        .db('identity')
        .collection('users')
        .updateOne({ _id: inactive.id as never }, { $set: { active: false } });
      expectError(
        await s.api('/authorization', {
          headers: { resource: tenant.publicKey },
          json: { email: inactive.email, password: inactive.password },
        }),
        401,
        'authorization_fail',
      );
      for (const status of ['locked', 'suspended']) {
        const member = await createMember(s.stack, tenant);
        await s
          .db('identity')
          .collection('relationships')
          .updateOne({ _id: `${tenant.resourceId}:${member.id}` as never }, { $set: { status } });
        expectError(
          await s.api('/authorization', {
            headers: { resource: tenant.publicKey },
            json: { email: member.email, password: member.password },
          }),
          401,
          'authorization_fail',
        );
      }
    });

    it('refuses a redirect_uri off the resource host: 409 invalid_redirect_uri', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const member = await createMember(s.stack, tenant);
      for (const redirect_uri of ['https://evil.example/cb', 'http://news.example/cb', 'not a url', 'https://news.example.evil.test/cb']) {
        const response = await s.api('/authorization', {
          headers: { resource: tenant.publicKey },
          json: { email: member.email, password: member.password, response_type: 'code', redirect_uri },
        });
        expectError(response, 409, 'invalid_redirect_uri');
      }
    });

    it('requires a resource for the code response types', async () => {
      expectError(
        await s.api('/authorization', {
          json: { email: 'a@b.test', password: 'x', response_type: 'code', redirect_uri: 'https://x.test/' },
        }),
        404,
        'resource_not_exists',
      );
    });
  });

  describe('code response types', () => {
    it('returns a code and the destination, without a token, for response_type=code', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const member = await createMember(s.stack, tenant);
      const response = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        json: { email: member.email, password: member.password, response_type: 'code', redirect_uri: 'https://app.news.example/callback' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ code: anyToken, redirect_uri: 'https://app.news.example/callback' });
      expect(response.body).not.toHaveProperty('token');
      const stored = JSON.stringify(await s.db('identity').collection('auth_codes').find().toArray());
      expect(stored).not.toContain(response.body['code'] as string);
    });

    it('returns both for code_and_token', async () => {
      const tenant = await createTenant(s.stack, { host: 'news.example' });
      const member = await createMember(s.stack, tenant);
      const response = await s.api('/authorization', {
        headers: { resource: tenant.publicKey },
        form: { email: member.email, password: member.password, response_type: 'code_and_token', redirect_uri: 'https://news.example/cb' },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        code: anyToken,
        token: anyToken,
        token_type: 'bearer',
        redirect_uri: 'https://news.example/cb',
      });
    });
  });
});
