import type { DomainEvent } from '@masthead/core/events';
import { connect } from 'nats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newResourceId, planFixture, pricingFixture } from './support/fixtures.js';
import { startCatalogHarness, type CatalogHarness } from './support/harness.js';

let harness: CatalogHarness;
beforeAll(async () => {
  harness = await startCatalogHarness();
}, 60_000);
afterAll(async () => {
  await harness?.stop();
}, 30_000);

const DAY_MS = 86_400_000;
let lastUserId = 500;
const newUserId = () => ++lastUserId;

/** A resource with one plan and one pricing of that period. */
async function catalogWith(period = '14 days', pricing: { private?: boolean; active?: boolean } = {}) {
  const resourceId = newResourceId();
  const plan = await planFixture(harness.client, resourceId, 'basic', { title: 'Basic', fullAccess: true });
  const created = await pricingFixture(harness.client, plan.id, 'Default', { period, ...pricing });
  return { resourceId, plan, pricing: created };
}

const membershipEvents = (events: DomainEvent[], resourceId: number) =>
  events.filter((event) => event.name === 'membership_created' && event.resource_id === resourceId);

/** A membership row written straight to the database, as a path without claims (or another replica) would. */
function insertMembershipRow(row: {
  id: number;
  userId: number;
  resourceId: number;
  plan: { id: number };
  pricing: { id: number };
  now: Date;
}) {
  return harness.db.collection('memberships').insertOne({
    _id: row.id,
    user_id: row.userId,
    resource_id: row.resourceId,
    plan_id: row.plan.id,
    pricing_id: row.pricing.id,
    active: true,
    autorenew: false,
    is_team_subscription: false,
    start_date: row.now,
    end_date: null,
    created_at: row.now,
    updated_at: row.now,
  } as never);
}

const attach = (resourceId: number, userId: number, pricingId: number, singleSubscription = false) =>
  harness.client.attachDefaultMembership({ resourceId, userId, pricingId, singleSubscription }).then((response) => response.attached);

describe('AttachDefaultMembership', () => {
  it('attaches an active pricing once, with an end from its period, a history row and an event', async () => {
    const { resourceId, plan, pricing } = await catalogWith('14 days');
    const userId = newUserId();
    const before = Date.now();

    expect(await attach(resourceId, userId, pricing.id)).toBe(true);
    const after = Date.now();
    expect(await attach(resourceId, userId, pricing.id)).toBe(false);

    const list = await harness.client.listMemberships({ resourceId, userId, includeHistory: true });
    expect(list.items).toHaveLength(1);
    const [membership] = list.items;
    expect(membership).toMatchObject({ userId, resourceId, autorenew: false, isTeamSubscription: false, active: true });
    expect(membership?.pricing).toMatchObject({
      id: pricing.id,
      planId: plan.id,
      period: '14 days',
      plan: { id: plan.id, title: 'Basic', fullAccess: true },
    });
    // Every stored field travels; the gateway decides who sees the timestamps (ADR 0095).
    expect(membership?.pricing?.createdAt).toMatch(/Z$/);
    const end = Date.parse(membership?.subscriptionEndDate ?? '');
    expect(membership?.subscriptionEndDate).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(end).toBeGreaterThanOrEqual(before + 14 * DAY_MS);
    expect(end).toBeLessThanOrEqual(after + 14 * DAY_MS);

    expect(list.history).toEqual([
      {
        id: expect.any(Number),
        membershipId: membership?.id,
        pricingId: pricing.id,
        action: 'created',
        createdAt: expect.stringMatching(/Z$/),
      },
    ]);
    const events = membershipEvents(await harness.settledEvents(), resourceId);
    expect(events.map((event) => event.payload)).toEqual([
      { membership_id: membership?.id, user_id: userId, pricing_id: pricing.id, plan_id: plan.id, source: 'default' },
    ]);
    expect(events[0]?.source).toBe('catalog');
  });

  it('answers attached=false for an inactive, foreign or missing pricing', async () => {
    const inactive = await catalogWith('1 month', { active: false });
    const foreign = await catalogWith('1 month');
    const userId = newUserId();

    expect(await attach(inactive.resourceId, userId, inactive.pricing.id)).toBe(false);
    expect(await attach(inactive.resourceId, userId, foreign.pricing.id)).toBe(false);
    expect(await attach(inactive.resourceId, userId, 999_999)).toBe(false);
    expect(await attach(inactive.resourceId, userId, 0)).toBe(false);
    expect((await harness.client.listMemberships({ resourceId: inactive.resourceId, userId, includeHistory: true })).items).toEqual([]);
    await expect(
      harness.client.attachDefaultMembership({ resourceId: inactive.resourceId, userId: 0, pricingId: 1, singleSubscription: false }),
    ).rejects.toMatchObject({
      status: 400,
      code: 'invalid_user_id',
    });
  });

  it('with single_subscription attaches only to a user without an active membership in the resource', async () => {
    const { resourceId, plan } = await catalogWith('1 month');
    const first = await pricingFixture(harness.client, plan.id, 'First', { period: '1 month' });
    const second = await pricingFixture(harness.client, plan.id, 'Second', { period: '1 month' });
    const holder = newUserId();
    const newcomer = newUserId();

    expect(await attach(resourceId, holder, first.id, true)).toBe(true);
    expect(await attach(resourceId, holder, second.id, true)).toBe(false);
    expect(await attach(resourceId, holder, second.id, false)).toBe(true);
    expect(await attach(resourceId, newcomer, second.id, true)).toBe(true);

    const pricingsOf = async (userId: number) =>
      (await harness.client.listMemberships({ resourceId, userId, includeHistory: false })).items.map(
        (membership) => membership.pricing?.id,
      );
    expect((await pricingsOf(holder)).sort()).toEqual([first.id, second.id].sort());
    expect(await pricingsOf(newcomer)).toEqual([second.id]);
  });

  it('creates exactly one membership when the same user attaches 20 times in parallel', async () => {
    const { resourceId, pricing } = await catalogWith('1 month');
    const userId = newUserId();

    const results = await Promise.all(Array.from({ length: 20 }, () => attach(resourceId, userId, pricing.id)));

    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await harness.db.collection('memberships').countDocuments({ resource_id: resourceId, user_id: userId })).toBe(1);
    expect(await harness.db.collection('membership_history').countDocuments({ resource_id: resourceId, user_id: userId })).toBe(1);
    expect(membershipEvents(await harness.settledEvents(), resourceId)).toHaveLength(1);
  });

  it('gives 20 different users their membership in parallel, each with its own ID', async () => {
    const { resourceId, pricing } = await catalogWith('1 month');
    const users = Array.from({ length: 20 }, newUserId);

    const results = await Promise.all(users.map((userId) => attach(resourceId, userId, pricing.id)));

    expect(results.every(Boolean)).toBe(true);
    const ids = await harness.db.collection('memberships').distinct('_id', { resource_id: resourceId });
    expect(ids).toHaveLength(20);
  });

  it('counts a membership that has no claim, and waits for a fresh claim of a running attach', async () => {
    const { resourceId, plan, pricing } = await catalogWith('1 month');
    const [heldWithoutClaim, beingAttached] = [newUserId(), newUserId()];
    const now = new Date();
    await insertMembershipRow({ id: 9_000_000 + heldWithoutClaim, userId: heldWithoutClaim, resourceId, plan, pricing, now });
    await harness.db.collection('membership_claims').insertOne({
      _id: `${resourceId}:${beingAttached}:${pricing.id}`,
      token: 'running',
      membership_id: null,
      created_at: now,
    } as never);

    expect(await attach(resourceId, heldWithoutClaim, pricing.id)).toBe(false);
    expect(await attach(resourceId, beingAttached, pricing.id)).toBe(false);
    expect(await harness.db.collection('memberships').countDocuments({ resource_id: resourceId })).toBe(1);
  });

  it('takes over a stale claim whose holder never created the membership, once under a race', async () => {
    const { resourceId, pricing } = await catalogWith('1 month');
    const userId = newUserId();
    await harness.db.collection('membership_claims').insertOne({
      _id: `${resourceId}:${userId}:${pricing.id}`,
      token: 'crashed',
      membership_id: null,
      created_at: new Date(Date.now() - 10 * 60_000),
    } as never);

    const results = await Promise.all(Array.from({ length: 10 }, () => attach(resourceId, userId, pricing.id)));

    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await harness.db.collection('memberships').countDocuments({ resource_id: resourceId, user_id: userId })).toBe(1);
  });
});

describe('GrantMembership', () => {
  it('grants any pricing of the resource with the requested autorenew and end date', async () => {
    const { resourceId, plan, pricing } = await catalogWith('1 month', { private: true });
    const userId = newUserId();

    const granted = await harness.client.grantMembership({
      resourceId,
      userId,
      pricingId: pricing.id,
      autorenew: true,
      endDate: '2031-01-31T12:00:00+02:00',
    });

    expect(granted).toMatchObject({
      userId,
      resourceId,
      autorenew: true,
      active: true,
      isTeamSubscription: false,
      subscriptionEndDate: '2031-01-31T10:00:00.000Z',
      pricing: { id: pricing.id, private: true, plan: { id: plan.id, title: 'Basic', fullAccess: true } },
    });
    const events = membershipEvents(await harness.settledEvents(), resourceId);
    expect(events.map((event) => ('source' in event.payload ? event.payload.source : undefined))).toEqual(['grant']);
  });

  it('ends after the pricing period without an end date, and a repeated grant returns the same membership', async () => {
    const { resourceId, pricing } = await catalogWith('14 days');
    const userId = newUserId();
    const before = Date.now();

    const first = await harness.client.grantMembership({ resourceId, userId, pricingId: pricing.id, autorenew: false });
    const after = Date.now();
    const again = await harness.client.grantMembership({
      resourceId,
      userId,
      pricingId: pricing.id,
      autorenew: true,
      endDate: '2032-01-01',
    });

    const end = Date.parse(first.subscriptionEndDate ?? '');
    expect(end).toBeGreaterThanOrEqual(before + 14 * DAY_MS);
    expect(end).toBeLessThanOrEqual(after + 14 * DAY_MS);
    expect(again).toEqual(first);
    expect(await attach(resourceId, userId, pricing.id)).toBe(false);
    expect(await harness.db.collection('memberships').countDocuments({ resource_id: resourceId, user_id: userId })).toBe(1);
  });

  it('answers 404 pricing_not_found for a pricing of another resource, and 400 for bad input', async () => {
    const { resourceId, pricing } = await catalogWith('1 month');
    const other = await catalogWith('1 month');
    const userId = newUserId();
    const grant = (overrides: { endDate?: string; userId?: number; pricingId?: number }) =>
      harness.client.grantMembership({ resourceId, userId, pricingId: pricing.id, autorenew: false, ...overrides });

    await expect(grant({ pricingId: other.pricing.id })).rejects.toMatchObject({
      status: 404,
      code: 'pricing_not_found',
      description: 'Pricing not found',
    });
    await expect(grant({ endDate: 'next month' })).rejects.toMatchObject({ status: 400, code: 'invalid_end_date' });
    // A time without a zone would be read in the server's zone: refused.
    await expect(grant({ endDate: '2031-01-01T10:00' })).rejects.toMatchObject({ status: 400, code: 'invalid_end_date' });
    await expect(grant({ endDate: '2020-01-01' })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_end_date',
      description: 'end_date must be in the future',
    });
    await expect(grant({ userId: -3 })).rejects.toMatchObject({ status: 400, code: 'invalid_user_id' });
    expect(await harness.db.collection('memberships').countDocuments({ resource_id: resourceId })).toBe(0);
  });
});

describe('ListMemberships', () => {
  it('lists the active memberships of one user in one resource, newest first; history on request', async () => {
    const resourceId = newResourceId();
    const plan = await planFixture(harness.client, resourceId, 'news', { title: 'News' });
    const monthly = await pricingFixture(harness.client, plan.id, 'Monthly');
    const yearly = await pricingFixture(harness.client, plan.id, 'Yearly', { period: '1 year' });
    const gift = await pricingFixture(harness.client, plan.id, 'Gift');
    const [userId, neighbour] = [newUserId(), newUserId()];

    expect(await attach(resourceId, userId, monthly.id)).toBe(true);
    await harness.client.grantMembership({ resourceId, userId, pricingId: yearly.id, autorenew: true });
    const ended = await harness.client.grantMembership({ resourceId, userId, pricingId: gift.id, autorenew: false });
    await harness.db.collection('memberships').updateOne({ _id: ended.id as never }, { $set: { active: false } });
    expect(await attach(resourceId, neighbour, monthly.id)).toBe(true);
    const elsewhere = await catalogWith('1 month');
    expect(await attach(elsewhere.resourceId, userId, elsewhere.pricing.id)).toBe(true);

    const withoutHistory = await harness.client.listMemberships({ resourceId, userId, includeHistory: false });
    expect(withoutHistory.items.map((item) => item.pricing?.title)).toEqual(['Yearly', 'Monthly']);
    expect(withoutHistory.items.map((item) => item.autorenew)).toEqual([true, false]);
    expect(withoutHistory.history).toEqual([]);

    const withHistory = await harness.client.listMemberships({ resourceId, userId, includeHistory: true });
    expect(withHistory.items).toEqual(withoutHistory.items);
    expect(withHistory.history.map((change) => [change.pricingId, change.action])).toEqual([
      [gift.id, 'created'],
      [yearly.id, 'created'],
      [monthly.id, 'created'],
    ]);
    expect(await harness.client.listMemberships({ resourceId, userId: newUserId(), includeHistory: true })).toEqual({
      items: [],
      history: [],
    });
  });
});

describe('cached membership lists (ADR 0043)', () => {
  const list = (resourceId: number, userId: number) => harness.client.listMemberships({ resourceId, userId, includeHistory: true });

  it('show every write of this replica at once: attach, renewal change, detach', async () => {
    const { resourceId, pricing } = await catalogWith('1 month');
    const userId = newUserId();
    expect((await list(resourceId, userId)).items).toEqual([]);

    expect(await attach(resourceId, userId, pricing.id)).toBe(true);
    const attached = await list(resourceId, userId);
    expect(attached.items.map((item) => [item.pricing?.id, item.autorenew])).toEqual([[pricing.id, false]]);
    const membershipId = attached.items[0]!.id;

    await harness.client.setMembershipRenewal({ resourceId, userId, membershipId, autorenew: true });
    const renewed = await list(resourceId, userId);
    expect(renewed.items.map((item) => item.autorenew)).toEqual([true]);
    expect(renewed.history.map((change) => change.action)).toEqual(['renewal_changed', 'created']);

    await harness.client.detachMembership({ resourceId, userId, membershipId });
    expect((await list(resourceId, userId)).items).toEqual([]);
  });

  it('drop a user’s lists when another replica announces a membership change', async () => {
    const { resourceId, plan, pricing } = await catalogWith('1 month');
    const userId = newUserId();
    expect((await list(resourceId, userId)).items).toEqual([]);
    // Another replica's write: this replica only learns of it through the event.
    const now = new Date();
    await insertMembershipRow({ id: 8_000_000 + userId, userId, resourceId, plan, pricing, now });
    // Not asserted here that the list is still stale: the test NATS is shared with other files'
    // stacks, whose catalog_updated events may drop this replica's lists at any moment.

    const nats = await connect({ servers: harness.infra.natsUrl });
    const event = {
      id: `test-membership-${userId}`,
      name: 'membership_created',
      source: 'catalog',
      occurred_at: now.toISOString(),
      resource_id: resourceId,
      payload: { membership_id: 8_000_000 + userId, user_id: userId, pricing_id: pricing.id, plan_id: plan.id, source: 'grant' },
    };
    nats.publish('masthead.events.membership_created', JSON.stringify(event));
    await nats.flush();
    await nats.close();
    await expect
      .poll(async () => (await list(resourceId, userId)).items.map((item) => item.id), { timeout: 5000 })
      .toEqual([8_000_000 + userId]);
  });
});
