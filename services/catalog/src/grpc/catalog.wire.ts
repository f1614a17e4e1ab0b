import type { Membership, MembershipChange, Plan, PlanRef, Pricing } from '@masthead/proto/catalog';
import type { MembershipChangeRecord } from '../memberships/history.schema.js';
import type { MembershipView } from '../memberships/membership.reader.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import type { PlanView } from '../plans/plan.service.js';
import type { PricingRecord } from '../pricings/pricing.schema.js';

/** Storage rows → CatalogService messages. The gateway shapes the JSON from these. */

const iso = (date: Date) => date.toISOString();

export const toPlanRef = (plan: PlanRecord): PlanRef => ({ id: plan._id, title: plan.title, fullAccess: plan.full_access });

/**
 * `users_limit` stays unset: document 1 shows it on team plan lists only, which are not served
 * here yet. created_at, updated_at and country_vat are for admin context only.
 */
export function toPricing(pricing: PricingRecord, plan: PlanRecord | null, admin: boolean): Pricing {
  const message: Pricing = {
    id: pricing._id,
    planId: pricing.plan_id,
    title: pricing.title,
    price: pricing.price,
    currency: pricing.currency,
    period: pricing.period,
    externalSourceIds: pricing.external_source_ids ?? '',
    active: pricing.active,
    private: pricing.private,
    plan: plan ? toPlanRef(plan) : undefined,
  };
  if (admin) {
    message.createdAt = iso(pricing.created_at);
    message.updatedAt = iso(pricing.updated_at);
    message.countryVat = pricing.country_vat ?? undefined;
  }
  return message;
}

export function toPlan({ plan, pricings }: PlanView, admin: boolean): Plan {
  const message: Plan = {
    id: plan._id,
    title: plan.title,
    slug: plan.slug,
    active: plan.active,
    private: plan.private,
    fullAccess: plan.full_access,
    subscriptions: pricings.map((pricing) => toPricing(pricing, plan, admin)),
  };
  if (admin) {
    message.createdAt = iso(plan.created_at);
    message.updatedAt = iso(plan.updated_at);
  }
  return message;
}

export const toMembership = ({ membership, pricing, plan }: MembershipView): Membership => ({
  id: membership._id,
  userId: membership.user_id,
  resourceId: membership.resource_id,
  pricing: pricing ? toPricing(pricing, plan, false) : undefined,
  subscriptionEndDate: membership.end_date ? iso(membership.end_date) : undefined,
  autorenew: membership.autorenew,
  isTeamSubscription: membership.is_team_subscription,
  active: membership.active,
});

export const toMembershipChange = (change: MembershipChangeRecord): MembershipChange => ({
  id: change._id,
  membershipId: change.membership_id,
  pricingId: change.pricing_id,
  action: change.action,
  createdAt: iso(change.created_at),
});
