import type { Membership, MembershipChange, Plan, Pricing } from '@masthead/proto/catalog';
import type { ResourceMemberships, UserPlan } from '@masthead/proto/catalog/member_views';
import { FIRST_PAGE, toPaginator, type Paginator } from '@masthead/core/pagination';

export interface PricingShape {
  /**
   * Team plan lists (document 1: `users_limit` on team lists): present, null where the Pricing
   * sets no limit. Every other read leaves it out, although catalog always sends it.
   */
  usersLimit?: boolean;
}

/**
 * Pricing as document 1 spells it. Catalog sends every field; this is the one place that
 * decides which a caller sees (ADR 0095): admin-only fields in admin context, `users_limit` on
 * team lists.
 */
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
    type: pricing.type || 'standard',
    // `public` is the inverse of `private`, kept because the API says so.
    public: !pricing.private,
    // Expansion of follow-up Pricings is disabled on these reads: null, as the spec shows.
    next_subscription: null,
    downgrade_subscription: null,
    plan: pricing.plan ? { id: pricing.plan.id, title: pricing.plan.title, full_access: pricing.plan.fullAccess } : null,
  };
  if (shape.usersLimit) json['users_limit'] = pricing.usersLimit ?? null;
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

/**
 * The one conversion of a paginator: the common message, spelled as document 1 writes it. A
 * service always sends one; absent reads as an empty first page.
 */
export function serializePaginator(paginator: Paginator = toPaginator(FIRST_PAGE, 0)): Record<string, number> {
  return {
    current_page: paginator.currentPage,
    page: paginator.page,
    total_pages: paginator.totalPages,
    total_items: paginator.totalItems,
    limit: paginator.limit,
  };
}
