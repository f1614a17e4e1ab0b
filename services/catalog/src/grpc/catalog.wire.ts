import type { Membership, MembershipChange, Plan, PlanRef, Pricing, ResourceMemberships, UserPlan } from '@masthead/proto/catalog';
import type { ResourceMembershipsView } from '../member-views/resource-memberships.reader.js';
import type { UserPlanView } from '../member-views/user-plans.reader.js';
import type { MembershipChangeRecord } from '../memberships/history.schema.js';
import type { MembershipView } from '../memberships/membership.reader.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import type { PlanView } from '../plans/plan.service.js';
import type { PricingRecord } from '../pricings/pricing.schema.js';

/** Storage rows → CatalogService messages. The gateway shapes the JSON from these. */

const iso = (date: Date) => date.toISOString();

export const toPlanRef = (plan: PlanRecord): PlanRef => ({ id: plan._id, title: plan.title, fullAccess: plan.full_access });

export interface PricingOptions {
  /** Team plan lists only (document 1: `users_limit` on team lists); unset elsewhere. */
  usersLimit?: boolean;
}

/**
 * `users_limit` is set only when asked for (team plan lists) and stored; created_at, updated_at
 * and country_vat are for admin context only.
 */
export function toPricing(pricing: PricingRecord, plan: PlanRecord | null, admin: boolean, options: PricingOptions = {}): Pricing {
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
  if (options.usersLimit && pricing.users_limit !== null && pricing.users_limit !== undefined) message.usersLimit = pricing.users_limit;
  if (admin) {
    message.createdAt = iso(pricing.created_at);
    message.updatedAt = iso(pricing.updated_at);
    message.countryVat = pricing.country_vat ?? undefined;
  }
  return message;
}

export function toPlan({ plan, pricings }: PlanView, admin: boolean, options: PricingOptions = {}): Plan {
  const message: Plan = {
    id: plan._id,
    title: plan.title,
    slug: plan.slug,
    active: plan.active,
    private: plan.private,
    fullAccess: plan.full_access,
    subscriptions: pricings.map((pricing) => toPricing(pricing, plan, admin, options)),
    // Rows stored before plan hierarchies existed have neither field.
    parentPlanId: plan.parent_plan_id ?? 0,
    canOwnTeams: plan.can_own_teams ?? false,
  };
  if (admin) {
    message.createdAt = iso(plan.created_at);
    message.updatedAt = iso(plan.updated_at);
  }
  return message;
}

export const toMembership = ({ membership, pricing, plan }: MembershipView, admin = false): Membership => ({
  id: membership._id,
  userId: membership.user_id,
  resourceId: membership.resource_id,
  pricing: pricing ? toPricing(pricing, plan, admin) : undefined,
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

/** A user plan: the plan without `subscriptions`, and its one membership. */
export const toUserPlan = ({ plan, membership }: UserPlanView, admin: boolean): UserPlan => ({
  plan: toPlan({ plan, pricings: [] }, admin),
  membership: toMembership(membership, admin),
});

export const toResourceMemberships = ({ resource, memberships }: ResourceMembershipsView, admin: boolean): ResourceMemberships => ({
  resourceId: resource.id,
  title: resource.title,
  key: resource.publicKey,
  host: resource.host,
  memberships: memberships.map((view) => toMembership(view, admin)),
});
