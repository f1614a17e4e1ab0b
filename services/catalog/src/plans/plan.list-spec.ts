import { prefixedFields, type ListSpec } from '@masthead/core/pagination';

/**
 * Filters and orders of the public plan list. Each field answers to its bare name and to the
 * `Plans.`-prefixed name that document 1 uses (`filter[Plans.id]`).
 */
export const PUBLIC_PLAN_LIST: ListSpec = {
  fields: prefixedFields('Plans', {
    id: { path: '_id', type: 'number' },
    title: { path: 'title', type: 'text' },
    slug: { path: 'slug', type: 'text' },
  }),
  // Document 1 F: default order Plans.created_at DESC.
  defaultOrder: { path: 'created_at', sort: 'DESC' },
};

/**
 * Filters of the team plan list (GET /user/teams/{team_id}/plans): the same names as the public
 * list. The order is fixed, newest first; the operation reads no order, by or sort.
 */
export const TEAM_PLAN_LIST: ListSpec = {
  fields: PUBLIC_PLAN_LIST.fields,
  sortable: [],
  defaultOrder: { path: 'created_at', sort: 'DESC' },
};
