import { defineError } from '@masthead/core/errors';

/**
 * GET /integrations/resource-settings without a resolvable resource: document 2 K answers 401
 * with an empty JSON array, not the envelope (kept on purpose).
 */
export const resourceSettingsWithoutResource = defineError(
  { status: 401, code: 'resource_not_exists', description: 'No resource: the body is an empty array' },
  () => ({ body: [] }),
);
