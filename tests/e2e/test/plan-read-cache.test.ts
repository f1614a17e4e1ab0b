import { createTenant, type Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { eventually, grpcCallCounter, useStack } from './support.js';

const { calls, counter } = grpcCallCounter();

/**
 * The gateway's cache of catalog's public plan answers (docs/adr/0209), with a lifetime far
 * longer than any test: whatever a test sees change, catalog's `catalog_updated` changed.
 */
describe('plan read cache', () => {
  const s = useStack({ env: { PLAN_CACHE_TTL_MS: '60000' }, gatewayInterceptors: [counter] });

  const withPlan = async (title: string) => {
    const tenant = await createTenant(s.stack);
    const plan = await s.stack.operator.plans.upsertPlan({
      resourceId: tenant.resourceId,
      slug: 'basic',
      title,
      active: true,
      private: false,
      fullAccess: false,
    });
    await s.stack.operator.pricings.upsertPricing({
      planId: plan.id,
      title: 'Monthly',
      price: 500,
      currency: 'USD',
      period: '1 month',
      active: true,
      private: false,
      externalSourceIds: '',
    });
    return { tenant, planId: plan.id };
  };

  const listPlans = (tenant: Tenant) => s.api('/plans', { headers: { resource: tenant.publicKey }, query: 'page=1' });
  const getPlan = (tenant: Tenant, id: number) => s.api(`/plans/${id}`, { headers: { resource: tenant.publicKey } });
  const titles = (body: Record<string, unknown>) => (body['items'] as { title: string }[]).map((plan) => plan.title);

  /** The gRPC calls of one more read (each file's stack has a NATS of its own: nothing else drops our entries). */
  async function callsOfWarmRead(read: () => Promise<{ status: number }>): Promise<string[]> {
    calls.length = 0;
    expect((await read()).status).toBe(200);
    return [...calls];
  }

  it('serves a repeated guest read of the plans and of a plan without a call', async () => {
    const { tenant, planId } = await withPlan('Basic');
    expect((await listPlans(tenant)).status).toBe(200);
    expect((await getPlan(tenant, planId)).status).toBe(200);
    expect(await callsOfWarmRead(() => listPlans(tenant))).toEqual([]);
    expect(await callsOfWarmRead(() => getPlan(tenant, planId))).toEqual([]);
  });

  it('serves a plan change at once, through catalog’s announcement', async () => {
    const { tenant, planId } = await withPlan('Basic');
    expect(titles((await listPlans(tenant)).body)).toEqual(['Basic']);
    expect((await getPlan(tenant, planId)).body['title']).toBe('Basic');

    await s.stack.operator.plans.upsertPlan({
      resourceId: tenant.resourceId,
      slug: 'basic',
      title: 'Basic plus',
      active: true,
      private: false,
      fullAccess: false,
    });
    await eventually(async () => (titles((await listPlans(tenant)).body)[0] === 'Basic plus' ? true : undefined), 5000);
    await eventually(async () => ((await getPlan(tenant, planId)).body['title'] === 'Basic plus' ? true : undefined), 5000);
  });

  it('serves a pricing change at once too', async () => {
    const { tenant, planId } = await withPlan('Basic');
    const prices = async () => ((await listPlans(tenant)).body['items'] as { subscriptions: { price: number }[] }[])[0]?.subscriptions;
    expect((await prices())?.map((pricing) => pricing.price)).toEqual([500]);

    await s.stack.operator.pricings.upsertPricing({
      planId,
      title: 'Monthly',
      price: 700,
      currency: 'USD',
      period: '1 month',
      active: true,
      private: false,
      externalSourceIds: '',
    });
    await eventually(async () => ((await prices())?.[0]?.price === 700 ? true : undefined), 5000);
  });

  it('keeps each resource’s answers apart', async () => {
    const first = await withPlan('First');
    const second = await withPlan('Second');
    expect(titles((await listPlans(first.tenant)).body)).toEqual(['First']);
    expect(titles((await listPlans(second.tenant)).body)).toEqual(['Second']);
    expect((await getPlan(second.tenant, first.planId)).status).toBe(404);
  });
});
