import type { Membership, MembershipChange, Plan, PlanRef, Pricing } from '@masthead/proto/catalog';
import type { ResourceMemberships, UserPlan } from '@masthead/proto/catalog/member_views';
import type { ResourceMembershipsView } from '../member-views/resource-memberships.reader.js';
import type { UserPlanView } from '../member-views/user-plans.reader.js';
import type { MembershipChangeRecord } from '../memberships/history.schema.js';
import type { MembershipView } from '../memberships/membership.reader.js';
import type { PlanRecord } from '../plans/plan.schema.js';
import type { PlanView } from '../plans/plan.service.js';
import type { PricingRecord } from '../pricings/pricing.schema.js';

/** Storage rows → CatalogService messages. The gateway shapes the JSON from these. */

const iso = (date: Date) => date.toISOString();

export const toPlanRef = (plan: PlanRecord): PlanRef => ({
  id: plan._id,
  title: plan.title,
  fullAccess: plan.full_access,
  slug: plan.slug,
});

/**
 * Every stored field travels: `users_limit` where the Pricing sets one, timestamps and
 * country_vat always. Which of them a caller sees is the gateway serializer's decision (ADR 0095).
 */
export const toPricing = (pricing: PricingRecord, plan: PlanRecord | null): Pricing => ({
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
  usersLimit: pricing.users_limit ?? undefined,
  createdAt: iso(pricing.created_at),
  updatedAt: iso(pricing.updated_at),
  countryVat: pricing.country_vat ?? undefined,
  type: pricing.type ?? 'standard',
});

export const toPlan = ({ plan, pricings }: PlanView): Plan => ({
  id: plan._id,
  title: plan.title,
  slug: plan.slug,
  active: plan.active,
  private: plan.private,
  fullAccess: plan.full_access,
  subscriptions: pricings.map((pricing) => toPricing(pricing, plan)),
  createdAt: iso(plan.created_at),
  updatedAt: iso(plan.updated_at),
  // Rows stored before plan hierarchies existed have neither field.
  parentPlanId: plan.parent_plan_id ?? 0,
  canOwnTeams: plan.can_own_teams ?? false,
});

export const toMembership = ({ membership, pricing, plan }: MembershipView): Membership => ({
  id: membership._id,
  userId: membership.user_id,
  resourceId: membership.resource_id,
  pricing: pricing ? toPricing(pricing, plan) : undefined,
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
export const toUserPlan = ({ plan, membership }: UserPlanView): UserPlan => ({
  plan: toPlan({ plan, pricings: [] }),
  membership: toMembership(membership),
});

export const toResourceMemberships = ({ resource, memberships }: ResourceMembershipsView): ResourceMemberships => ({
  resourceId: resource.id,
  title: resource.title,
  key: resource.publicKey,
  host: resource.host,
  memberships: memberships.map(toMembership),
});
