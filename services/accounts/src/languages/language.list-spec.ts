import type { ListSpec } from '@masthead/core/pagination';

/**
 * Filters and orders of GET /languages (document 2, B: "filter on language fields"). Each
 * field answers to its bare name and to the `Languages.`-prefixed name, as the plan list does.
 * Timestamps are neither filterable nor sortable (the shared filter has no date type).
 */
const FIELDS = {
  id: { path: '_id', type: 'number' },
  slug: { path: 'slug', type: 'text' },
  title: { path: 'title', type: 'text' },
  description: { path: 'description', type: 'text' },
  is_default: { path: 'is_default', type: 'boolean' },
  active: { path: 'active', type: 'boolean' },
  sort: { path: 'sort', type: 'number' },
} as const;

export const LANGUAGE_LIST: ListSpec = {
  fields: Object.fromEntries(
    Object.entries(FIELDS).flatMap(([name, spec]) => [
      [name, spec],
      [`Languages.${name}`, spec],
    ]),
  ),
  // Document 2, B: by `id`, DESC by default.
  defaultOrder: { path: '_id', sort: 'DESC' },
};
