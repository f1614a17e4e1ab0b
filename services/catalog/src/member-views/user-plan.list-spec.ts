import type { CompositeListSpec } from '../support/composite-list.js';

export type UserPlanEntity = 'plan' | 'pricing' | 'membership';

/**
 * Filters and orders of GET /user/plans, over the three records document 1 names: `Plans.*`
 * (the plan), `Subscriptions.*` (the membership's pricing, which the API calls a subscription)
 * and `UsersPlans.*` (the user-plan relationship, i.e. the membership). Dates sort only.
 */
export const USER_PLAN_LIST: CompositeListSpec<UserPlanEntity> = {
  entities: ['plan', 'pricing', 'membership'],
  fields: {
    'Plans.id': { entity: 'plan', path: '_id', type: 'number' },
    'Plans.title': { entity: 'plan', path: 'title', type: 'text' },
    'Plans.slug': { entity: 'plan', path: 'slug', type: 'text' },
    'Plans.active': { entity: 'plan', path: 'active', type: 'boolean' },
    'Plans.private': { entity: 'plan', path: 'private', type: 'boolean' },
    'Plans.full_access': { entity: 'plan', path: 'full_access', type: 'boolean' },
    'Subscriptions.id': { entity: 'pricing', path: '_id', type: 'number' },
    'Subscriptions.title': { entity: 'pricing', path: 'title', type: 'text' },
    'Subscriptions.price': { entity: 'pricing', path: 'price', type: 'number' },
    'Subscriptions.currency': { entity: 'pricing', path: 'currency', type: 'text' },
    'Subscriptions.period': { entity: 'pricing', path: 'period', type: 'text' },
    'Subscriptions.active': { entity: 'pricing', path: 'active', type: 'boolean' },
    'Subscriptions.private': { entity: 'pricing', path: 'private', type: 'boolean' },
    'UsersPlans.id': { entity: 'membership', path: '_id', type: 'number' },
    'UsersPlans.autorenew': { entity: 'membership', path: 'autorenew', type: 'boolean' },
    'UsersPlans.is_team_subscription': { entity: 'membership', path: 'is_team_subscription', type: 'boolean' },
  },
  sortOnly: {
    'Plans.created_at': { entity: 'plan', path: 'created_at' },
    'Plans.updated_at': { entity: 'plan', path: 'updated_at' },
    'Subscriptions.created_at': { entity: 'pricing', path: 'created_at' },
    'UsersPlans.created_at': { entity: 'membership', path: 'created_at' },
    'UsersPlans.subscription_end_date': { entity: 'membership', path: 'end_date' },
  },
  // Document 1 F: default order Plans.created_at DESC.
  defaultOrder: 'Plans.created_at',
};
