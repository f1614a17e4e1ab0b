import { ACCOUNTS_ROUTES } from './accounts.js';
import { BILLING_ROUTES } from './billing.js';
import { CATALOG_ROUTES } from './catalog.js';
import { COMMUNITY_ROUTES } from './community.js';
import type { RouteDefinition } from './define.js';
import { IDENTITY_ROUTES } from './identity.js';
import { INTEGRATIONS_ROUTES } from './integrations.js';

export type { HttpMethod, RouteDefinition } from './define.js';

/**
 * Every operation of the two spec documents (OPERATIONS.md, 162 rows), plus POST /user/event
 * (document 2, section L), which the inventory leaves out, and billing's checkout routes, which
 * existing clients call beyond the spec (ADR 0142), and the card provider's webhook (ADR 0147);
 * gateway/test/route-table.test.ts lists them.
 * Each service's rows live in its own file, so services are built side by side without one
 * shared table to merge.
 */
export const ROUTES: readonly RouteDefinition[] = [
  ...ACCOUNTS_ROUTES,
  ...IDENTITY_ROUTES,
  ...CATALOG_ROUTES,
  ...BILLING_ROUTES,
  ...COMMUNITY_ROUTES,
  ...INTEGRATIONS_ROUTES,
];
