import type { Plan, Pricing } from '@masthead/proto/catalog';
import { createTenant, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { catalogKit, publicPricing, type Json, type JsonList } from './catalog-support.js';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

/** GET /subscriptions, GET /subscriptions/{id} and GET /integrations/plans (document 1 F). */
describe('public catalog reads', () => {
  const s = useStack();
  const kit = catalogKit(s);
  let tenant: Tenant;
  let adminToken: string;
  const plans: Record<string, Plan> = {};
  const pricings: Record<string, Pricing> = {};

  beforeAll(async () => {
    tenant = await createTenant(s.stack);
    // Created in this order: the default order (created_at DESC) lists the later ones first.
    plans['basic'] = await kit.plan(tenant, 'basic', { title: 'Basic' });
    pricings['basicMonthly'] = await kit.pricing(plans['basic'].id, 'Basic monthly', { price: 500, externalSourceIds: 'b-1,b-2' });
    pricings['basicHidden'] = await kit.pricing(plans['basic'].id, 'Basic hidden', { price: 400, private: true });
    pricings['basicOld'] = await kit.pricing(plans['basic'].id, 'Basic old', { price: 300, active: false });
    plans['digital'] = await kit.plan(tenant, 'digital', { title: 'Digital', fullAccess: true });
    // users_limit is for team lists only: a public list does not show it.
    pricings['digitalMonthly'] = await kit.pricing(plans['digital'].id, 'Digital monthly', { price: 999, usersLimit: 5, countryVat: 'DE' });
    pricings['digitalYearly'] = await kit.pricing(plans['digital'].id, 'Digital yearly', {
      price: 9900,
      currency: 'EUR',
      period: '1 year',
    });
    plans['hidden'] = await kit.plan(tenant, 'hidden', { title: 'Hidden offer', private: true });
    pricings['hiddenMonthly'] = await kit.pricing(plans['hidden'].id, 'Hidden monthly', { price: 100 });
    plans['retired'] = await kit.plan(tenant, 'retired', { title: 'Retired', active: false });
    pricings['retiredYearly'] = await kit.pricing(plans['retired'].id, 'Retired yearly', { price: 200, period: '1 year' });
    plans['empty'] = await kit.plan(tenant, 'empty', { title: 'Empty' });
    // Lower case on purpose: the embedded catalog orders titles regardless of case.
    plans['alpha'] = await kit.plan(tenant, 'alpha', { title: 'alpha' });
    pricings['alphaWeekly'] = await kit.pricing(plans['alpha'].id, 'Alpha weekly', { price: 150, currency: 'GBP', period: '1 week' });
    adminToken = (await kit.signedInMember(tenant, 'admin')).token;
  });

  const pub = (key: string, plan: string) => publicPricing(pricings[key]!, plans[plan]!);
  const titles = (body: Json) => (body['items'] as JsonList).map((item) => item['title']);

  describe('GET /subscriptions', () => {
    const list = (query: string, headers: Record<string, string> = {}) =>
      s.api('/subscriptions', { headers: { resource: tenant.publicKey, ...headers }, query });

    it('lists active public pricings of active public plans, newest first, with the paginator', async () => {
      const response = await list('page=1');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        items: [
          pub('alphaWeekly', 'alpha'),
          pub('digitalYearly', 'digital'),
          pub('digitalMonthly', 'digital'),
          pub('basicMonthly', 'basic'),
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 4, limit: 10 },
      });
    });

    it('filters with a bracket map (text, case-insensitive substring) and a JSON string (number arrays)', async () => {
      expect(titles((await list('filter[Subscriptions.currency]=eur')).body)).toEqual(['Digital yearly']);
      expect(titles((await list('filter[title]=MONTH')).body)).toEqual(['Digital monthly', 'Basic monthly']);
      const byPlans = await list(`filter=${encodeURIComponent(JSON.stringify({ 'Plans.id': [plans['basic']!.id, plans['hidden']!.id] }))}`);
      // The hidden plan is outside the list's scope: no filter widens it.
      expect(titles(byPlans.body)).toEqual(['Basic monthly']);
      const byPrice = await list(`filter=${encodeURIComponent(JSON.stringify({ price: [500, 9900, 400] }))}`);
      expect(titles(byPrice.body)).toEqual(['Digital yearly', 'Basic monthly']);
      expect(titles((await list(`filter[Subscriptions.id]=${pricings['basicHidden']!.id}`)).body)).toEqual([]);
    });

    it("returns each Pricing's type and filters on it as existing clients spell it (docs/adr/0140)", async () => {
      const own = await createTenant(s.stack);
      const plan = await kit.plan(own, 'typed', { title: 'Typed' });
      const standard = await kit.pricing(plan.id, 'Standard monthly');
      const gift = await kit.pricing(plan.id, 'Gift monthly', { type: 'gift' });
      const seats = await kit.pricing(plan.id, 'Team seats', { type: 'team' });
      expect([standard.type, gift.type, seats.type]).toEqual(['standard', 'gift', 'team']);
      const typed = (query: string) => s.api('/subscriptions', { headers: { resource: own.publicKey }, query });
      const all = await typed('page=1');
      expect((all.body['items'] as JsonList).map((item) => [item['title'], item['type']])).toEqual([
        ['Team seats', 'team'],
        ['Gift monthly', 'gift'],
        ['Standard monthly', 'standard'],
      ]);
      const clients = await typed(`filter=${encodeURIComponent(JSON.stringify({ 'subscriptions.type': 'standard' }))}`);
      expect(clients.status).toBe(200);
      expect(clients.body).toEqual({
        items: [publicPricing(standard, plan)],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 1, limit: 10 },
      });
      expect(titles((await typed('filter[Subscriptions.type]=GIFT')).body)).toEqual(['Gift monthly']);
      expect(titles((await typed('filter[type][]=gift&filter[type][]=team')).body)).toEqual(['Team seats', 'Gift monthly']);
      // A type that is none of the four is refused where the operator sets it.
      await expect(kit.pricing(plan.id, 'Odd', { type: 'voucher' })).rejects.toMatchObject({ status: 400 });
      // Changing other fields keeps the stored type; naming one changes it.
      expect((await kit.pricing(plan.id, 'Gift monthly', { price: 1200 })).type).toBe('gift');
      expect((await kit.pricing(plan.id, 'Gift monthly', { type: 'standard' })).type).toBe('standard');
    });

    it('sorts (order wins over by, sort in any case) and pages', async () => {
      expect(titles((await list('order=price&by=title&sort=asc')).body)).toEqual([
        'Alpha weekly',
        'Basic monthly',
        'Digital monthly',
        'Digital yearly',
      ]);
      expect(titles((await list('by=title&sort=ASC')).body)).toEqual([
        'Alpha weekly',
        'Basic monthly',
        'Digital monthly',
        'Digital yearly',
      ]);
      const page = await list('page=2&limit=3&order=Subscriptions.price&sort=DESC');
      expect(page.body).toEqual({
        items: [pub('alphaWeekly', 'alpha')],
        paginator: { current_page: 2, page: 2, total_pages: 2, total_items: 4, limit: 3 },
      });
      const beyond = await list('page=5');
      expect(beyond.status).toBe(200);
      expect(beyond.body['items']).toEqual([]);
    });

    it('refuses bad list input with 409 field errors naming each problem', async () => {
      const bad = await list('page=0&limit=x&sort=SIDEWAYS&filter[nope]=1');
      expect(bad.status).toBe(409);
      expect(bad.body).toEqual({
        error: true,
        error_fields: { page: expect.any(String), limit: expect.any(String), sort: expect.any(String) },
        req_guid: anyRequestId,
      });
      const fields = await list('filter[nope]=1&filter[price]=cheap&order=created_at');
      expect(fields.status).toBe(409);
      expect(fields.body).toEqual({
        error: true,
        error_fields: { 'filter.nope': expect.any(String), 'filter.price': expect.any(String), order: expect.any(String) },
        req_guid: anyRequestId,
      });
      const json = await list('filter=%7Bnot-json');
      expect(json.status).toBe(409);
      expect(json.body['error_fields']).toEqual({ filter: expect.any(String) });
      const nested = await list('filter[title][x]=1');
      expect(nested.status).toBe(409);
      expect(nested.body['error_fields']).toEqual({ 'filter.title': expect.any(String) });
    });

    it('adds created_at, updated_at and country_vat in admin context only', async () => {
      const admin = await list('filter[Subscriptions.id]=' + pricings['digitalMonthly']!.id, { token: adminToken });
      expect(admin.body['items']).toEqual([
        { ...pub('digitalMonthly', 'digital'), created_at: anyIsoDate, updated_at: anyIsoDate, country_vat: 'DE' },
      ]);
    });

    it('needs a resource and shows none of another resource', async () => {
      const missing = await s.api('/subscriptions', { query: 'page=1' });
      expect(missing.status).toBe(404);
      expect(missing.body).toEqual({ error: 'resource_not_exists', error_description: expect.any(String), req_guid: anyRequestId });
      const other = await createTenant(s.stack);
      const empty = await s.api('/subscriptions', { headers: { resource: other.publicKey }, query: 'page=1' });
      expect(empty.body).toEqual({ items: [], paginator: { current_page: 1, page: 1, total_pages: 0, total_items: 0, limit: 10 } });
    });
  });

  describe('GET /subscriptions/{id}', () => {
    const detail = (id: string | number, headers: Record<string, string> = {}) =>
      s.api(`/subscriptions/${id}`, { headers: { resource: tenant.publicKey, ...headers } });
    const notFound = { error: 'subscription_not_found', error_description: 'Subscription not found', req_guid: anyRequestId };

    it('returns a public pricing', async () => {
      const response = await detail(pricings['basicMonthly']!.id);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(pub('basicMonthly', 'basic'));
    });

    it('returns private pricings and pricings of private plans by direct link, like the plan detail', async () => {
      const privatePricing = await detail(pricings['basicHidden']!.id);
      expect(privatePricing.status).toBe(200);
      expect(privatePricing.body).toEqual({ ...pub('basicHidden', 'basic'), private: true, public: false });
      expect((await detail(pricings['hiddenMonthly']!.id)).body).toEqual(pub('hiddenMonthly', 'hidden'));
    });

    it('answers 404 subscription_not_found for inactive, retired-plan, foreign, unknown and malformed IDs', async () => {
      const other = await createTenant(s.stack);
      const otherPlan = await kit.plan(other, 'other');
      const foreign = await kit.pricing(otherPlan.id, 'Foreign monthly');
      for (const id of [pricings['basicOld']!.id, pricings['retiredYearly']!.id, foreign.id, 987_654_321, 0, 'abc', '1e3', '-1']) {
        const response = await detail(id);
        expect(response.status, String(id)).toBe(404);
        expect(response.body).toEqual(notFound);
      }
    });

    it('adds admin-only fields in admin context', async () => {
      const response = await detail(pricings['digitalMonthly']!.id, { token: adminToken });
      expect(response.body).toEqual({
        ...pub('digitalMonthly', 'digital'),
        created_at: anyIsoDate,
        updated_at: anyIsoDate,
        country_vat: 'DE',
      });
    });
  });

  describe('GET /integrations/plans', () => {
    const embedded = (headers: Record<string, string>) => s.api('/integrations/plans', { headers });
    const planJson = (key: string, subscriptions: Json[]) => ({
      id: plans[key]!.id,
      title: plans[key]!.title,
      slug: plans[key]!.slug,
      active: true,
      private: false,
      subscriptions,
    });

    it('returns the public catalog grouped by plan, by title ascending regardless of case, without pagination', async () => {
      const response = await embedded({ resource: tenant.publicKey });
      expect(response.status).toBe(200);
      // The empty plan offers nothing and is left out; private and inactive ones are not shown.
      expect(response.body).toEqual({
        items: [
          planJson('alpha', [pub('alphaWeekly', 'alpha')]),
          planJson('basic', [pub('basicMonthly', 'basic')]),
          planJson('digital', [pub('digitalMonthly', 'digital'), pub('digitalYearly', 'digital')]),
        ],
      });
    });

    it('answers {items: []} without a resource header and for a resource without plans', async () => {
      const missing = await embedded({});
      expect(missing.status).toBe(200);
      expect(missing.body).toEqual({ items: [] });
      const other = await createTenant(s.stack);
      expect((await embedded({ resource: other.publicKey })).body).toEqual({ items: [] });
    });

    it('still refuses an unknown resource key (a supplied key must resolve)', async () => {
      const response = await embedded({ resource: 'no-such-resource' });
      expect(response.status).toBe(404);
      expect(response.body['error']).toBe('resource_not_exists');
    });

    it('adds admin-only fields in admin context', async () => {
      const response = await embedded({ resource: tenant.publicKey, token: adminToken });
      const digital = (response.body['items'] as JsonList)[2]!;
      expect(digital).toMatchObject({ created_at: anyIsoDate, updated_at: anyIsoDate });
      expect((digital['subscriptions'] as JsonList)[0]).toMatchObject({ created_at: anyIsoDate, country_vat: 'DE' });
    });
  });
});
