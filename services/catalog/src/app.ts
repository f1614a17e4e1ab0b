import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { CatalogServiceService } from '@masthead/proto/catalog';
import type { CatalogConfig } from './config.js';
import { catalogHandlers } from './grpc/handlers.js';
import { MembershipClaimRepository } from './memberships/claim.repository.js';
import { MembershipHistoryRepository } from './memberships/history.repository.js';
import { MembershipCreator } from './memberships/membership.creator.js';
import { MembershipReader } from './memberships/membership.reader.js';
import { MembershipRepository } from './memberships/membership.repository.js';
import { MembershipService } from './memberships/membership.service.js';
import { PlanRepository } from './plans/plan.repository.js';
import { PlanService } from './plans/plan.service.js';
import { ExternalSourceLookup } from './pricings/external-source.lookup.js';
import { PricingRepository } from './pricings/pricing.repository.js';
import { PricingService } from './pricings/pricing.service.js';

export type { CatalogConfig } from './config.js';
export { catalogEnv, loadCatalogConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startCatalogService(config: CatalogConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('catalog', config, logger);
  const planRows = new PlanRepository(runtime.db);
  const pricingRows = new PricingRepository(runtime.db);
  const membershipRows = new MembershipRepository(runtime.db);
  const history = new MembershipHistoryRepository(runtime.db);
  const claims = new MembershipClaimRepository(runtime.db);
  await Promise.all([planRows, pricingRows, membershipRows, history, claims].map((repository) => repository.ready()));

  const plans = new PlanService({ plans: planRows, pricings: pricingRows });
  const pricings = new PricingService({ plans: planRows, pricings: pricingRows });
  const memberships = new MembershipService({
    pricings: pricingRows,
    memberships: membershipRows,
    reader: new MembershipReader({ memberships: membershipRows, history, pricings: pricingRows, plans: planRows }),
    creator: new MembershipCreator({ memberships: membershipRows, history, claims, events: runtime.events }),
  });
  return serveRuntime(runtime, config.GRPC_LISTEN, [
    {
      name: 'masthead.catalog.v1.CatalogService',
      definition: CatalogServiceService,
      implementation: catalogHandlers({
        plans,
        pricings,
        memberships,
        externalSources: new ExternalSourceLookup({ pricings: pricingRows, plans: planRows, logger: runtime.logger }),
      }),
    },
  ]);
}
