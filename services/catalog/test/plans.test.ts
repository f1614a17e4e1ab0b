import { SortDirection } from '@masthead/proto/common';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalogHarness, type CatalogHarness } from './support/harness.js';
import { newResourceId, planFixture, pricingFixture } from './support/fixtures.js';

let harness: CatalogHarness;
beforeAll(async () => {
  harness = await startCatalogHarness();
}, 60_000);
afterAll(async () => {
  await harness?.stop();
}, 30_000);

const query = (overrides: { page?: number; limit?: number; filter?: object; orderBy?: string; sort?: SortDirection } = {}) => ({
  page: overrides.page ?? 1,
  limit: overrides.limit ?? 10,
  filterJson: JSON.stringify(overrides.filter ?? {}),
  orderBy: overrides.orderBy ?? '',
  sort: overrides.sort ?? SortDirection.SORT_DIRECTION_DESC,
});

/** Titles of one page of the public list. */
async function listTitles(resourceId: number, q: Parameters<typeof query>[0] = {}): Promise<string[]> {
  const page = await harness.client.listPlans({ resourceId, query: query(q) });
  return page.items.map((plan) => plan.title);
}

describe('ListPlans', () => {
  it('lists active public plans, newest first by default, with their active public pricings only', async () => {
    const resourceId = newResourceId();
    const { client } = harness;
    const basic = await planFixture(client, resourceId, 'basic', { title: 'Basic' });
    const gold = await planFixture(client, resourceId, 'gold', { title: 'Gold' });
    await planFixture(client, resourceId, 'hidden', { title: 'Hidden', private: true });
    await planFixture(client, resourceId, 'retired', { title: 'Retired', active: false });
    await planFixture(client, newResourceId(), 'foreign', { title: 'Foreign' });

    const monthly = await pricingFixture(client, basic.id, 'Monthly', { price: 499 });
    const yearly = await pricingFixture(client, basic.id, 'Yearly', { price: 4990, period: '1 year' });
    await pricingFixture(client, basic.id, 'Secret', { private: true });
    await pricingFixture(client, basic.id, 'Old', { active: false });
    const goldMonthly = await pricingFixture(client, gold.id, 'Gold monthly', { price: 1999, currency: 'EUR' });

    const page = await client.listPlans({ resourceId, query: query() });

    expect(page.items.map((plan) => plan.title)).toEqual(['Gold', 'Basic']);
    expect(page.paginator).toEqual({ currentPage: 1, page: 1, totalPages: 1, totalItems: 2, limit: 10 });
    const [goldItem, basicItem] = page.items;
    // Pricings never leak across plans, and come in ID order.
    expect(basicItem?.subscriptions.map((pricing) => pricing.id)).toEqual([monthly.id, yearly.id]);
    expect(goldItem?.subscriptions.map((pricing) => pricing.id)).toEqual([goldMonthly.id]);
    expect(basicItem?.subscriptions[0]).toEqual({
      id: monthly.id,
      planId: basic.id,
      title: 'Monthly',
      price: 499,
      currency: 'USD',
      period: '1 month',
      externalSourceIds: '',
      active: true,
      private: false,
      type: 'standard',
      plan: { id: basic.id, title: 'Basic', fullAccess: false, slug: 'basic' },
      // Every stored field travels; the gateway decides who sees the timestamps (ADR 0095).
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
  });

  it('sends timestamps, country_vat and users_limit where stored, to every caller', async () => {
    const resourceId = newResourceId();
    const plan = await planFixture(harness.client, resourceId, 'vat');
    await pricingFixture(harness.client, plan.id, 'Monthly', { countryVat: 'DE', usersLimit: 5 });
    await pricingFixture(harness.client, plan.id, 'Yearly');

    const [listed] = (await harness.client.listPlans({ resourceId, query: query() })).items;

    expect(listed?.createdAt).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(listed?.updatedAt).toMatch(/Z$/);
    expect(listed?.subscriptions[0]).toMatchObject({
      countryVat: 'DE',
      usersLimit: 5,
      createdAt: expect.stringMatching(/Z$/),
      updatedAt: expect.stringMatching(/Z$/),
    });
    // Absent where the Pricing stores none (proto3 optional: presence).
    expect(listed?.subscriptions[1]?.countryVat).toBeUndefined();
    expect(listed?.subscriptions[1]?.usersLimit).toBeUndefined();
  });

  it('filters text fields by case-insensitive substring and numbers by scalar or array', async () => {
    const resourceId = newResourceId();
    const { client } = harness;
    const gold = await planFixture(client, resourceId, 'gold-premium', { title: 'Gold Premium' });
    const plus = await planFixture(client, resourceId, 'premium-plus', { title: 'PREMIUM Plus' });
    const basic = await planFixture(client, resourceId, 'basic', { title: 'Basic' });

    expect(await listTitles(resourceId, { filter: { title: 'premium' } })).toEqual(['PREMIUM Plus', 'Gold Premium']);
    expect(await listTitles(resourceId, { filter: { 'Plans.title': 'mIuM p' } })).toEqual(['PREMIUM Plus']);
    expect(await listTitles(resourceId, { filter: { slug: 'BASIC' } })).toEqual(['Basic']);
    expect(await listTitles(resourceId, { filter: { 'Plans.slug': ['gold', 'plus'] } })).toEqual(['PREMIUM Plus', 'Gold Premium']);
    expect(await listTitles(resourceId, { filter: { id: gold.id } })).toEqual(['Gold Premium']);
    expect(await listTitles(resourceId, { filter: { 'Plans.id': String(basic.id) } })).toEqual(['Basic']);
    expect(await listTitles(resourceId, { filter: { id: [basic.id, plus.id] } })).toEqual(['Basic', 'PREMIUM Plus']);
    // Regular-expression characters are matched literally.
    expect(await listTitles(resourceId, { filter: { title: '.*' } })).toEqual([]);
    // Filters combine with AND, and never reach another resource's plans.
    expect(await listTitles(resourceId, { filter: { title: 'premium', id: gold.id } })).toEqual(['Gold Premium']);
    expect(await listTitles(newResourceId(), { filter: { id: gold.id } })).toEqual([]);
  });

  it('sorts by a named field in either direction', async () => {
    const resourceId = newResourceId();
    for (const [slug, title] of [
      ['b', 'Bravo'],
      ['c', 'Charlie'],
      ['a', 'Alpha'],
    ]) {
      await planFixture(harness.client, resourceId, slug as string, { title });
    }
    expect(await listTitles(resourceId, { orderBy: 'title', sort: SortDirection.SORT_DIRECTION_ASC })).toEqual([
      'Alpha',
      'Bravo',
      'Charlie',
    ]);
    expect(await listTitles(resourceId, { orderBy: 'Plans.title' })).toEqual(['Charlie', 'Bravo', 'Alpha']);
    expect(await listTitles(resourceId, { orderBy: 'id', sort: SortDirection.SORT_DIRECTION_ASC })).toEqual(['Bravo', 'Charlie', 'Alpha']);
    // Default order is created_at DESC; ASC reverses it.
    expect(await listTitles(resourceId)).toEqual(['Alpha', 'Charlie', 'Bravo']);
    expect(await listTitles(resourceId, { sort: SortDirection.SORT_DIRECTION_ASC })).toEqual(['Bravo', 'Charlie', 'Alpha']);
  });

  it('pages with the paginator numbers of document 1', async () => {
    const resourceId = newResourceId();
    for (const slug of ['p1', 'p2', 'p3', 'p4', 'p5']) await planFixture(harness.client, resourceId, slug);
    const page = (n: number) =>
      harness.client.listPlans({
        resourceId,
        query: query({ page: n, limit: 2, orderBy: 'slug', sort: SortDirection.SORT_DIRECTION_ASC }),
      });

    const second = await page(2);
    expect(second.items.map((plan) => plan.slug)).toEqual(['p3', 'p4']);
    expect(second.paginator).toEqual({ currentPage: 2, page: 2, totalPages: 3, totalItems: 5, limit: 2 });
    expect((await page(3)).items.map((plan) => plan.slug)).toEqual(['p5']);
    const beyond = await page(4);
    expect(beyond.items).toEqual([]);
    expect(beyond.paginator).toEqual({ currentPage: 4, page: 4, totalPages: 3, totalItems: 5, limit: 2 });

    const empty = await harness.client.listPlans({ resourceId: newResourceId(), query: query() });
    expect(empty).toEqual({ items: [], paginator: { currentPage: 1, page: 1, totalPages: 0, totalItems: 0, limit: 10 } });
  });

  it('refuses a filter or order on a field the list does not offer', async () => {
    const resourceId = newResourceId();
    await expect(harness.client.listPlans({ resourceId, query: query({ filter: { active: false } }) })).rejects.toMatchObject({
      status: 409,
      code: 'validation_failed',
      fields: { 'filter.active': expect.any(String) },
    });
    await expect(harness.client.listPlans({ resourceId, query: query({ orderBy: 'private' }) })).rejects.toMatchObject({
      status: 409,
      fields: { order: expect.any(String) },
    });
    await expect(harness.client.listPlans({ resourceId, query: query({ filter: { id: 'abc' } }) })).rejects.toMatchObject({
      status: 409,
      fields: { 'filter.id': expect.any(String) },
    });
  });
});

describe('GetPlan', () => {
  it('shows an active plan, private included, with all its active pricings (direct-link view)', async () => {
    const resourceId = newResourceId();
    const { client } = harness;
    const plan = await planFixture(client, resourceId, 'vip', { title: 'VIP', private: true, fullAccess: true });
    const open = await pricingFixture(client, plan.id, 'Open');
    const secret = await pricingFixture(client, plan.id, 'Secret', { private: true });
    await pricingFixture(client, plan.id, 'Old', { active: false });
    const other = await planFixture(client, resourceId, 'other');
    await pricingFixture(client, other.id, 'Other monthly');

    // Hidden from the list ...
    expect(await listTitles(resourceId)).toEqual(['other']);
    // ... but reachable by ID.
    const detail = await client.getPlan({ resourceId, planId: plan.id });
    expect(detail).toMatchObject({ id: plan.id, title: 'VIP', slug: 'vip', active: true, private: true, fullAccess: true });
    expect(detail.subscriptions.map((pricing) => [pricing.id, pricing.private])).toEqual([
      [open.id, false],
      [secret.id, true],
    ]);
    expect(detail.subscriptions[1]?.plan).toEqual({ id: plan.id, title: 'VIP', fullAccess: true, slug: 'vip' });
    expect(detail.createdAt).toMatch(/Z$/);
  });

  it('answers 404 plan_not_found for an inactive, foreign or missing plan', async () => {
    const resourceId = newResourceId();
    const inactive = await planFixture(harness.client, resourceId, 'inactive', { active: false });
    const active = await planFixture(harness.client, resourceId, 'active');
    const notFound = { status: 404, code: 'plan_not_found', description: 'Plan not found' };

    await expect(harness.client.getPlan({ resourceId, planId: inactive.id })).rejects.toMatchObject(notFound);
    await expect(harness.client.getPlan({ resourceId: newResourceId(), planId: active.id })).rejects.toMatchObject(notFound);
    await expect(harness.client.getPlan({ resourceId, planId: 999_999 })).rejects.toMatchObject(notFound);
  });
});

describe('UpsertPlan', () => {
  it('creates by resource and slug, then updates the same plan', async () => {
    const resourceId = newResourceId();
    const created = await planFixture(harness.client, resourceId, 'pro', { title: 'Pro' });
    const updated = await planFixture(harness.client, resourceId, 'pro', { title: 'Pro 2', private: true, fullAccess: true });
    const elsewhere = await planFixture(harness.client, newResourceId(), 'pro');

    expect(updated).toMatchObject({ id: created.id, slug: 'pro', title: 'Pro 2', private: true, fullAccess: true, active: true });
    expect(Date.parse(updated.updatedAt ?? '')).toBeGreaterThanOrEqual(Date.parse(created.updatedAt ?? ''));
    expect(updated.createdAt).toBe(created.createdAt);
    expect(elsewhere.id).not.toBe(created.id);
  });

  it('creates one plan when the same slug is upserted in parallel', async () => {
    const resourceId = newResourceId();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => planFixture(harness.client, resourceId, 'raced', { title: `Title ${index}` })),
    );
    expect(new Set(results.map((plan) => plan.id)).size).toBe(1);
    expect(await harness.db.collection('plans').countDocuments({ resource_id: resourceId })).toBe(1);
  });

  it('creates distinct plans when different slugs are upserted in parallel', async () => {
    const resourceId = newResourceId();
    const results = await Promise.all(Array.from({ length: 20 }, (_, index) => planFixture(harness.client, resourceId, `slug-${index}`)));
    expect(new Set(results.map((plan) => plan.id)).size).toBe(20);
  });

  it('links a child plan to a parent of the same resource; absent fields keep the stored link, 0 clears it', async () => {
    const resourceId = newResourceId();
    const team = await planFixture(harness.client, resourceId, 'team', { canOwnTeams: true });
    expect(team).toMatchObject({ parentPlanId: 0, canOwnTeams: true });
    const seat = await planFixture(harness.client, resourceId, 'seat', { parentPlanId: team.id });
    expect(seat).toMatchObject({ parentPlanId: team.id, canOwnTeams: false });

    const kept = await planFixture(harness.client, resourceId, 'seat', { title: 'Seat 2' });
    expect(kept).toMatchObject({ id: seat.id, title: 'Seat 2', parentPlanId: team.id });
    const keptTeam = await planFixture(harness.client, resourceId, 'team', { title: 'Team 2' });
    expect(keptTeam.canOwnTeams).toBe(true);
    const cleared = await planFixture(harness.client, resourceId, 'seat', { parentPlanId: 0 });
    expect(cleared.parentPlanId).toBe(0);
    expect(await harness.db.collection('plans').findOne({ _id: seat.id as never })).toMatchObject({ parent_plan_id: null });
  });

  it('refuses a parent of another resource, the plan itself or a child plan: 400 invalid_parent_plan_id', async () => {
    const resourceId = newResourceId();
    const team = await planFixture(harness.client, resourceId, 'team', { canOwnTeams: true });
    const seat = await planFixture(harness.client, resourceId, 'seat', { parentPlanId: team.id });
    const foreign = await planFixture(harness.client, newResourceId(), 'foreign');
    const refused = { status: 400, code: 'invalid_parent_plan_id' };
    await expect(planFixture(harness.client, resourceId, 'other', { parentPlanId: foreign.id })).rejects.toMatchObject(refused);
    await expect(planFixture(harness.client, resourceId, 'other', { parentPlanId: 987_654_321 })).rejects.toMatchObject(refused);
    await expect(planFixture(harness.client, resourceId, 'team', { parentPlanId: team.id })).rejects.toMatchObject(refused);
    await expect(planFixture(harness.client, resourceId, 'deep', { parentPlanId: seat.id })).rejects.toMatchObject(refused);
    expect(await harness.db.collection('plans').countDocuments({ resource_id: resourceId })).toBe(2);
  });

  it('refuses bad operator input with invalid_* codes', async () => {
    const base = { resourceId: newResourceId(), slug: 'ok', title: 'Ok', active: true, private: false, fullAccess: false };
    await expect(harness.client.upsertPlan({ ...base, slug: 'has space' })).rejects.toMatchObject({ status: 400, code: 'invalid_slug' });
    await expect(harness.client.upsertPlan({ ...base, title: '   ' })).rejects.toMatchObject({ status: 400, code: 'invalid_title' });
    await expect(harness.client.upsertPlan({ ...base, resourceId: 0 })).rejects.toMatchObject({ status: 400, code: 'invalid_resource_id' });
  });
});

describe('UpsertPricing', () => {
  it('creates by plan and title, then updates it; optional fields keep their stored value', async () => {
    const resourceId = newResourceId();
    const plan = await planFixture(harness.client, resourceId, 'news');
    const created = await pricingFixture(harness.client, plan.id, 'Team', {
      price: 0,
      currency: 'GBP',
      period: '14 days',
      externalSourceIds: ' a, b,,c ',
      usersLimit: 5,
      countryVat: 'GB',
    });
    expect(created).toMatchObject({
      planId: plan.id,
      price: 0,
      currency: 'GBP',
      period: '14 days',
      externalSourceIds: 'a,b,c',
      countryVat: 'GB',
      usersLimit: 5,
    });

    const updated = await pricingFixture(harness.client, plan.id, 'Team', { price: 250, period: '2 weeks' });
    expect(updated).toMatchObject({ id: created.id, price: 250, period: '2 weeks', currency: 'USD', countryVat: 'GB', usersLimit: 5 });
    const row = await harness.db.collection('pricings').findOne({ _id: created.id as never });
    expect(row).toMatchObject({ users_limit: 5, country_vat: 'GB', resource_id: resourceId, price: 250 });

    const cleared = await pricingFixture(harness.client, plan.id, 'Team', { countryVat: '' });
    expect(cleared.countryVat).toBeUndefined();
  });

  it('answers 404 plan_not_found for an unknown plan', async () => {
    await expect(pricingFixture(harness.client, 987_654, 'Monthly')).rejects.toMatchObject({ status: 404, code: 'plan_not_found' });
  });

  // A fractional price cannot travel at all: int64 refuses it when the client serializes it.
  it('refuses a negative price, a bad currency and an unparseable period', async () => {
    const plan = await planFixture(harness.client, newResourceId(), 'strict');
    const invalid = (overrides: Parameters<typeof pricingFixture>[3], code: string) =>
      expect(pricingFixture(harness.client, plan.id, 'Monthly', overrides)).rejects.toMatchObject({ status: 400, code });

    await invalid({ price: -1 }, 'invalid_price');
    await invalid({ currency: 'usd' }, 'invalid_currency');
    await invalid({ currency: 'EURO' }, 'invalid_currency');
    await invalid({ period: 'monthly' }, 'invalid_period');
    await invalid({ period: '0 days' }, 'invalid_period');
    await invalid({ usersLimit: -2 }, 'invalid_users_limit');
    expect(await harness.db.collection('pricings').countDocuments({ plan_id: plan.id })).toBe(0);
  });
});

describe('cached public reads', () => {
  it('serve a plan or pricing change at once through this replica', async () => {
    const resourceId = newResourceId();
    const { client } = harness;
    const plan = await planFixture(client, resourceId, 'basic', { title: 'Basic' });
    expect(await listTitles(resourceId)).toEqual(['Basic']);
    expect((await client.getPlan({ resourceId, planId: plan.id })).subscriptions).toEqual([]);

    await planFixture(client, resourceId, 'basic', { title: 'Basic renamed' });
    const pricing = await pricingFixture(client, plan.id, 'Monthly', { price: 499 });

    expect(await listTitles(resourceId)).toEqual(['Basic renamed']);
    const detail = await client.getPlan({ resourceId, planId: plan.id });
    expect(detail.title).toBe('Basic renamed');
    expect(detail.subscriptions.map((item) => item.id)).toEqual([pricing.id]);
  });

  it('drop a resource when another replica announces a change (catalog_updated)', async () => {
    const resourceId = newResourceId();
    const plan = await planFixture(harness.client, resourceId, 'gold', { title: 'Gold' });
    await harness.settledEvents(); // the upsert's own event has reached this replica
    expect(await listTitles(resourceId)).toEqual(['Gold']);
    // Another replica's write: this replica's cache only learns of it through the event.
    await harness.db.collection('plans').updateOne({ _id: plan.id } as never, { $set: { title: 'Gold (other replica)' } });
    expect(await listTitles(resourceId)).toEqual(['Gold']);

    // What another replica's publish looks like to this one: the event on its subject.
    const nats = await connect({ servers: harness.infra.natsUrl });
    const event = {
      id: `test-${resourceId}`,
      name: 'catalog_updated',
      source: 'catalog',
      occurred_at: new Date().toISOString(),
      resource_id: resourceId,
      payload: {},
    };
    nats.publish('masthead.events.catalog_updated', JSON.stringify(event));
    await nats.flush();
    await nats.close();
    await expect.poll(() => listTitles(resourceId), { timeout: 5000 }).toEqual(['Gold (other replica)']);
  });

  it('publish catalog_updated for each plan and pricing write', async () => {
    const resourceId = newResourceId();
    const plan = await planFixture(harness.client, resourceId, 'silver', { title: 'Silver' });
    await pricingFixture(harness.client, plan.id, 'Monthly', { price: 100 });
    const events = (await harness.settledEvents()).filter((event) => event.name === 'catalog_updated' && event.resource_id === resourceId);
    expect(events.map((event) => ({ source: event.source, payload: event.payload }))).toEqual([
      { source: 'catalog', payload: {} },
      { source: 'catalog', payload: {} },
    ]);
  });
});
