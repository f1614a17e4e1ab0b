import { prefixedFields, type ListSpec } from '@masthead/core/pagination';

/**
 * Filters and orders of the public pricing list (GET /subscriptions). The API calls a pricing a
 * "subscription", so each field answers to its bare name and to the `Subscriptions.`-prefixed
 * name, in the style of `Plans.id` on the plan list; `Plans.id` selects by plan.
 */
export const PUBLIC_PRICING_LIST: ListSpec = {
  fields: {
    ...prefixedFields('Subscriptions', {
      id: { path: '_id', type: 'number' },
      plan_id: { path: 'plan_id', type: 'number' },
      title: { path: 'title', type: 'text' },
      price: { path: 'price', type: 'number' },
      currency: { path: 'currency', type: 'text' },
      period: { path: 'period', type: 'text' },
      type: { path: 'type', type: 'text' },
    }),
    // Existing clients spell this one in lower case: `filter={"subscriptions.type":"standard"}`.
    'subscriptions.type': { path: 'type', type: 'text' },
    'Plans.id': { path: 'plan_id', type: 'number' },
  },
  // Like the plan list: newest first unless the caller orders by a field.
  defaultOrder: { path: 'created_at', sort: 'DESC' },
};
