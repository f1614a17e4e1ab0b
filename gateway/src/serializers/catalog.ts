import type { Membership, MembershipChange, Plan, Pricing, ResourceMemberships, UserPlan } from '@masthead/proto/catalog';
import type { Paginator } from '@masthead/proto/common';

export interface PricingShape {
  /** Team plan lists: `users_limit` always present, null where the pricing sets no limit. */
  usersLimit?: boolean;
}

/** Pricing as document 1 spells it; admin-only fields appear only in admin context. */
export function serializePricing(pricing: Pricing, admin: boolean, shape: PricingShape = {}): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: pricing.id,
    plan_id: pricing.planId,
    title: pricing.title,
    price: pricing.price,
    currency: pricing.currency,
    period: pricing.period,
    external_source_ids: pricing.externalSourceIds,
    active: pricing.active,
    private: pricing.private,
    // `public` is the inverse of `private`, kept because the API says so.
    public: !pricing.private,
    // Expansion of follow-up Pricings is disabled on these reads: null, as the spec shows.
    next_subscription: null,
    downgrade_subscription: null,
    plan: pricing.plan ? { id: pricing.plan.id, title: pricing.plan.title, full_access: pricing.plan.fullAccess } : null,
  };
  if (shape.usersLimit) json['users_limit'] = pricing.usersLimit ?? null;
  else if (pricing.usersLimit !== undefined) json['users_limit'] = pricing.usersLimit;
  if (admin) {
    json['created_at'] = pricing.createdAt ?? null;
    json['updated_at'] = pricing.updatedAt ?? null;
    json['country_vat'] = pricing.countryVat ?? null;
  }
  return json;
}

/** The plan's own fields, without its pricings. */
function planFields(plan: Plan, admin: boolean): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: plan.id,
    title: plan.title,
    slug: plan.slug,
    active: plan.active,
    private: plan.private,
  };
  if (admin) {
    json['created_at'] = plan.createdAt ?? null;
    json['updated_at'] = plan.updatedAt ?? null;
  }
  return json;
}

/** Plan with its `subscriptions` array (the plural form of document 1, section F). */
export function serializePlan(plan: Plan, admin: boolean, shape: PricingShape = {}): Record<string, unknown> {
  return { ...planFields(plan, admin), subscriptions: plan.subscriptions.map((pricing) => serializePricing(pricing, admin, shape)) };
}

/**
 * A plan of the user plan list: singular `subscription`, the one membership-carrying Pricing
 * (document 1: "subscription (singular membership-carrying Pricing on the user plan list)").
 */
export function serializeUserPlan(userPlan: UserPlan, admin: boolean): Record<string, unknown> {
  return {
    ...planFields(userPlan.plan!, admin),
    subscription: userPlan.membership ? serializeMembership(userPlan.membership, admin) : null,
  };
}

/**
 * A membership is rendered as its Pricing plus the membership fields; `user_subscription_id`
 * carries the membership's own ID, which differs from the Pricing ID (ADR 0007).
 */
export function serializeMembership(membership: Membership, admin: boolean): Record<string, unknown> {
  const pricing = membership.pricing ? serializePricing(membership.pricing, admin) : {};
  return {
    ...pricing,
    user_subscription_id: membership.id,
    subscription_end_date: membership.subscriptionEndDate ?? null,
    autorenew: membership.autorenew,
    is_team_subscription: membership.isTeamSubscription,
  };
}

/**
 * A resource of the grouped member reads: the resource list item's fields ({title, key, host},
 * document 1 E) with the user's memberships there as `subscriptions`.
 */
export function serializeResourceMemberships(item: ResourceMemberships, admin: boolean): Record<string, unknown> {
  return {
    title: item.title,
    key: item.key,
    host: item.host ?? null,
    subscriptions: item.memberships.map((membership) => serializeMembership(membership, admin)),
  };
}

export function serializeMembershipChange(change: MembershipChange): Record<string, unknown> {
  return {
    id: change.id,
    user_subscription_id: change.membershipId,
    subscription_id: change.pricingId,
    action: change.action,
    created_at: change.createdAt,
  };
}

export function serializePaginator(paginator: Paginator | undefined): Record<string, number> {
  return {
    current_page: paginator?.currentPage ?? 1,
    page: paginator?.page ?? 1,
    total_pages: paginator?.totalPages ?? 0,
    total_items: paginator?.totalItems ?? 0,
    limit: paginator?.limit ?? 10,
  };
}
