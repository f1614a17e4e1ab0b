import { createMember, createTenant, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

/** GET /resource, GET /user, GET /plans and GET /plans/{id} through the real stack. */
describe('skeleton reads', () => {
  const s = useStack();
  let tenant: Tenant;
  let token: string;
  let adminToken: string;
  let memberId: number;
  const plans: Record<string, { id: number; pricings: number[] }> = {};

  const upsertPlan = async (slug: string, title: string, flags: { active?: boolean; private?: boolean } = {}) => {
    const plan = await s.stack.operator.plans.upsertPlan({
      resourceId: tenant.resourceId,
      slug,
      title,
      active: flags.active ?? true,
      private: flags.private ?? false,
      fullAccess: slug === 'digital',
    });
    plans[slug] = { id: plan.id, pricings: [] };
    return plan.id;
  };
  const upsertPricing = async (slug: string, title: string, price: number, currency: string, period: string, isPrivate = false) => {
    const pricing = await s.stack.operator.pricings.upsertPricing({
      planId: plans[slug]!.id,
      title,
      price,
      currency,
      period,
      active: true,
      private: isPrivate,
      externalSourceIds: `${slug}-ext`,
    });
    plans[slug]!.pricings.push(pricing.id);
    return pricing.id;
  };

  beforeAll(async () => {
    tenant = await createTenant(s.stack, { settings: { payments_in_live_mode: false, cardprovider_public_key_test: 'pk_test_demo' } });
    await upsertPlan('basic', 'Basic');
    await upsertPricing('basic', 'Basic monthly', 500, 'USD', '1 month');
    await upsertPlan('digital', 'Digital');
    await upsertPricing('digital', 'Digital monthly', 999, 'USD', '1 month');
    await upsertPricing('digital', 'Digital yearly', 9900, 'EUR', '1 year');
    await upsertPricing('digital', 'Digital student', 499, 'GBP', '1 month', true);
    await upsertPlan('hidden', 'Hidden offer', { private: true });
    await upsertPricing('hidden', 'Hidden monthly', 100, 'USD', '1 month');
    await upsertPlan('retired', 'Retired', { active: false });
    await upsertPricing('retired', 'Retired yearly', 100, 'USD', '1 year');

    const member = await createMember(s.stack, tenant);
    memberId = member.id;
    await s.stack.operator.memberships.grantMembership({
      resourceId: tenant.resourceId,
      userId: member.id,
      pricingId: plans['digital']!.pricings[0]!,
      autorenew: true,
    });
    token = (
      await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: member.email, password: member.password } })
    ).body['token'] as string;
    const admin = await createMember(s.stack, tenant, { role: 'admin' });
    await s.stack.operator.memberships.grantMembership({
      resourceId: tenant.resourceId,
      userId: admin.id,
      pricingId: plans['basic']!.pricings[0]!,
      autorenew: false,
    });
    adminToken = (
      await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: { email: admin.email, password: admin.password } })
    ).body['token'] as string;
  });

  describe('GET /resource', () => {
    it('returns the configuration projection, card-provider branch, no secrets', async () => {
      const response = await s.api('/resource', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        public_key: tenant.publicKey,
        origin: null,
        payments_in_live_mode: false,
        web_app_config: null,
        default_payment_system: 'cardprovider',
        cardprovider_public_key: 'pk_test_demo',
      });
    });

    it('needs an authenticated member', async () => {
      expect((await s.api('/resource', { headers: { resource: tenant.publicKey } })).status).toBe(401);
    });
  });

  describe('GET /user', () => {
    it('returns the projection with the resource views when a resource is given', async () => {
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ id: memberId, active: true, extra: {}, teams: [], assigned_tickets: [] });
      const subscriptions = response.body['subscriptions'] as Array<Record<string, unknown>>;
      expect(subscriptions).toEqual([
        expect.objectContaining({
          id: plans['digital']!.pricings[0],
          plan_id: plans['digital']!.id,
          title: 'Digital monthly',
          price: 999,
          currency: 'USD',
          period: '1 month',
          public: true,
          private: false,
          next_subscription: null,
          downgrade_subscription: null,
          plan: { id: plans['digital']!.id, title: 'Digital', full_access: true },
          autorenew: true,
          is_team_subscription: false,
          subscription_end_date: anyIsoDate,
        }),
      ]);
      expect(subscriptions[0]).not.toHaveProperty('created_at');
      expect(response.body['subscriptions_history']).toEqual([
        expect.objectContaining({ subscription_id: plans['digital']!.pricings[0], action: 'created' }),
      ]);
    });

    it('adds the admin-only Pricing fields to an admin’s memberships', async () => {
      const response = await s.api('/user', { headers: { resource: tenant.publicKey, token: adminToken } });
      expect(response.status).toBe(200);
      expect((response.body['subscriptions'] as Array<Record<string, unknown>>)[0]).toMatchObject({
        title: 'Basic monthly',
        created_at: anyIsoDate,
        updated_at: anyIsoDate,
        country_vat: null,
      });
    });

    it('returns only the base projection without a resource', async () => {
      const response = await s.api('/user', { headers: { token } });
      expect(response.status).toBe(200);
      expect(response.body['id']).toBe(memberId);
      for (const key of ['subscriptions', 'teams', 'subscriptions_history', 'assigned_tickets', 'extra'])
        expect(response.body).not.toHaveProperty(key);
    });
  });

  describe('GET /plans', () => {
    const list = (query: string, extra: Record<string, string> = {}) =>
      s.api('/plans', { headers: { resource: tenant.publicKey, ...extra }, query });

    it('lists active public plans with their active public pricings, newest first', async () => {
      const response = await list('page=1');
      expect(response.status).toBe(200);
      expect(response.body['paginator']).toEqual({ current_page: 1, page: 1, total_pages: 1, total_items: 2, limit: 10 });
      const items = response.body['items'] as Array<Record<string, unknown>>;
      expect(items.map((item) => item['title'])).toEqual(['Digital', 'Basic']);
      const digital = items[0]!;
      expect(digital).toEqual({
        id: plans['digital']!.id,
        title: 'Digital',
        slug: 'digital',
        active: true,
        private: false,
        subscriptions: [
          expect.objectContaining({
            title: 'Digital monthly',
            price: 999,
            currency: 'USD',
            period: '1 month',
            external_source_ids: 'digital-ext',
          }),
          expect.objectContaining({ title: 'Digital yearly', price: 9900, currency: 'EUR', period: '1 year' }),
        ],
      });
    });

    it('filters with a bracket map (text substring, case-insensitive) and a JSON string (number array)', async () => {
      const byTitle = await list('filter[Plans.title]=IGIT');
      expect((byTitle.body['items'] as Array<Record<string, unknown>>).map((item) => item['slug'])).toEqual(['digital']);
      const byIds = await list(`filter=${encodeURIComponent(JSON.stringify({ 'Plans.id': [plans['basic']!.id, plans['hidden']!.id] }))}`);
      expect((byIds.body['items'] as Array<Record<string, unknown>>).map((item) => item['slug'])).toEqual(['basic']);
    });

    it('pages, sorts (order wins over by) and reports the paginator', async () => {
      const page = await list('page=2&limit=1&order=title&by=id&sort=ASC');
      expect(page.body['paginator']).toEqual({ current_page: 2, page: 2, total_pages: 2, total_items: 2, limit: 1 });
      expect((page.body['items'] as Array<Record<string, unknown>>).map((item) => item['title'])).toEqual(['Digital']);
      const empty = await list('page=9');
      expect(empty.status).toBe(200);
      expect(empty.body['items']).toEqual([]);
    });

    it('refuses bad pagination input with a field-validation error', async () => {
      const response = await list('page=0&filter[nope]=1&sort=SIDEWAYS');
      expect(response.status).toBe(409);
      expect(response.body).toEqual({
        error: true,
        error_fields: { page: expect.any(String), sort: expect.any(String) },
        req_guid: anyRequestId,
      });
      const unknownField = await list('filter[secret]=1');
      expect(unknownField.status).toBe(409);
      expect(unknownField.body['error_fields']).toHaveProperty(['filter.secret']);
    });

    it('adds admin-only fields in admin context', async () => {
      const guestBefore = await list('page=1');
      const response = await list('page=1', { token: adminToken });
      const plan = (response.body['items'] as Array<Record<string, unknown>>)[0]!;
      expect(plan).toMatchObject({ created_at: anyIsoDate, updated_at: anyIsoDate });
      expect((plan['subscriptions'] as Array<Record<string, unknown>>)[0]).toMatchObject({ created_at: anyIsoDate, country_vat: null });
      // The same answer of catalog, shaped per caller: a guest after the admin sees no admin field.
      const guestAfter = await list('page=1');
      expect(guestAfter.body).toEqual(guestBefore.body);
      expect((guestAfter.body['items'] as Array<Record<string, unknown>>)[0]).not.toHaveProperty('created_at');
    });

    it('does not show another resource’s plans', async () => {
      const other = await createTenant(s.stack);
      const response = await s.api('/plans', { headers: { resource: other.publicKey }, query: 'page=1' });
      expect(response.body['items']).toEqual([]);
      expect(response.body['paginator']).toMatchObject({ total_items: 0, total_pages: 0 });
    });
  });

  describe('GET /plans/{id}', () => {
    it('shows an active private plan by direct link, with all its active pricings', async () => {
      const response = await s.api(`/plans/${plans['hidden']!.id}`, { headers: { resource: tenant.publicKey } });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({
        id: plans['hidden']!.id,
        private: true,
        subscriptions: [expect.objectContaining({ title: 'Hidden monthly' })],
      });
      const digital = await s.api(`/plans/${plans['digital']!.id}`, { headers: { resource: tenant.publicKey } });
      expect((digital.body['subscriptions'] as unknown[]).length).toBe(3);
    });

    it.each([
      ['an inactive plan', () => String(plans['retired']!.id)],
      ['an unknown ID', () => '999999'],
      ['a non-numeric ID', () => 'abc'],
    ])('answers 404 plan_not_found for %s', async (_name, id) => {
      const response = await s.api(`/plans/${id()}`, { headers: { resource: tenant.publicKey } });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({ error: 'plan_not_found', error_description: 'Plan not found', req_guid: anyRequestId });
    });

    it('does not show a plan of another resource', async () => {
      const other = await createTenant(s.stack);
      const response = await s.api(`/plans/${plans['basic']!.id}`, { headers: { resource: other.publicKey } });
      expect(response.status).toBe(404);
    });
  });
});
