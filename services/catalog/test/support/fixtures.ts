import type { Plan, Pricing } from '@masthead/proto/catalog';
import type { UpsertPlanRequest } from '@masthead/proto/catalog/plans';
import type { UpsertPricingRequest } from '@masthead/proto/catalog/pricings';
import type { CatalogClient } from './harness.js';

// A random base per file: NATS is shared by the run, so events are told apart by resource.
let lastResourceId = 1_000_000 + Math.floor(Math.random() * 2_000_000) * 1000;
/** Each test works in its own resource: isolation by tenant, never by truncation. */
export const newResourceId = (): number => ++lastResourceId;

export function planFixture(
  client: CatalogClient,
  resourceId: number,
  slug: string,
  overrides: Partial<UpsertPlanRequest> = {},
): Promise<Plan> {
  return client.upsertPlan({ resourceId, slug, title: slug, active: true, private: false, fullAccess: false, ...overrides });
}

export function pricingFixture(
  client: CatalogClient,
  planId: number,
  title: string,
  overrides: Partial<UpsertPricingRequest> = {},
): Promise<Pricing> {
  return client.upsertPricing({
    planId,
    title,
    price: 1000,
    currency: 'USD',
    period: '1 month',
    active: true,
    private: false,
    externalSourceIds: '',
    ...overrides,
  });
}
