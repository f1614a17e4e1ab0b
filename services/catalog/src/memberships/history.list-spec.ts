import { prefixedFields, type ListSpec } from '@masthead/core/pagination';

/**
 * Filters and orders of GET /user/plans/history. Names are the wire names of a history item
 * (`subscription_id` is the pricing, `user_subscription_id` the membership), bare or with the
 * `SubscriptionsHistory.` prefix, in the style of `Plans.id`.
 */
export const MEMBERSHIP_HISTORY_LIST: ListSpec = {
  fields: prefixedFields('SubscriptionsHistory', {
    id: { path: '_id', type: 'number' },
    action: { path: 'action', type: 'text' },
    subscription_id: { path: 'pricing_id', type: 'number' },
    user_subscription_id: { path: 'membership_id', type: 'number' },
  }),
  // Newest first, as GET /user shows `subscriptions_history`.
  defaultOrder: { path: 'created_at', sort: 'DESC' },
};
