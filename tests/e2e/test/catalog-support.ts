import type { Plan, Pricing } from '@masthead/proto/catalog';
import type { UpsertPlanRequest } from '@masthead/proto/catalog/plans';
import type { UpsertPricingRequest } from '@masthead/proto/catalog/pricings';
import { createMember, type Tenant } from '@masthead/testkit';
import { expect } from 'vitest';
import type { StackHandle } from './support.js';

export type Json = Record<string, unknown>;
export type JsonList = Json[];

/** Catalog arrangement through the operator APIs, as an operator would set it up. */
export function catalogKit(s: StackHandle) {
  const plan = (tenant: Pick<Tenant, 'resourceId'>, slug: string, overrides: Partial<UpsertPlanRequest> = {}): Promise<Plan> =>
    s.stack.operator.plans.upsertPlan({
      resourceId: tenant.resourceId,
      slug,
      title: slug,
      active: true,
      private: false,
      fullAccess: false,
      ...overrides,
    });

  const pricing = (planId: number, title: string, overrides: Partial<UpsertPricingRequest> = {}): Promise<Pricing> =>
    s.stack.operator.pricings.upsertPricing({
      planId,
      title,
      price: 1000,
      currency: 'USD',
      period: '1 month',
      active: true,
      private: false,
      externalSourceIds: '',
      ...overrides,
    });

  /** Grants a membership and returns its ID (the membership's own, not the pricing's). */
  const grant = async (tenant: Pick<Tenant, 'resourceId'>, userId: number, pricingId: number, autorenew = false): Promise<number> =>
    (await s.stack.operator.memberships.grantMembership({ resourceId: tenant.resourceId, userId, pricingId, autorenew })).id;

  const signIn = async (tenant: Pick<Tenant, 'publicKey'>, member: { email: string; password: string }): Promise<string> => {
    const response = await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: member });
    expect(response.status).toBe(200);
    return response.body['token'] as string;
  };

  /** A member of the tenant, signed in there. */
  const signedInMember = async (tenant: Tenant, role = 'user') => {
    const member = await createMember(s.stack, tenant, { role });
    return { ...member, token: await signIn(tenant, member) };
  };

  return { plan, pricing, grant, signIn, signedInMember };
}

/** The public Pricing projection (document 1), for whole-body assertions. */
export function publicPricing(pricing: Pricing, plan: Plan): Json {
  return {
    id: pricing.id,
    plan_id: plan.id,
    title: pricing.title,
    price: pricing.price,
    currency: pricing.currency,
    period: pricing.period,
    external_source_ids: pricing.externalSourceIds,
    active: pricing.active,
    private: pricing.private,
    type: pricing.type,
    public: !pricing.private,
    next_subscription: null,
    downgrade_subscription: null,
    plan: { id: plan.id, title: plan.title, full_access: plan.fullAccess },
  };
}
