import { createClients } from '@masthead/core/clients';
import { PartitionedReadCache } from '@masthead/core/cache';
import { onEvent } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { MemberViewsServiceService } from '@masthead/proto/catalog/member_views';
import { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import { PlansServiceService } from '@masthead/proto/catalog/plans';
import { PricingsServiceService } from '@masthead/proto/catalog/pricings';
import type { CatalogConfig } from './config.js';
import { memberViewsHandlers } from './grpc/member-views.handlers.js';
import { membershipsHandlers } from './grpc/memberships.handlers.js';
import { plansHandlers } from './grpc/plans.handlers.js';
import { pricingsHandlers } from './grpc/pricings.handlers.js';
import { ResourceMembershipsReader } from './member-views/resource-memberships.reader.js';
import { TeamPlansReader } from './member-views/team-plans.reader.js';
import { UserPlansReader } from './member-views/user-plans.reader.js';
import { MembershipClaimRepository } from './memberships/claim.repository.js';
import { MembershipDetachmentRepository } from './memberships/detachment.repository.js';
import { MembershipHistoryRepository } from './memberships/history.repository.js';
import { MembershipChanger } from './memberships/membership.changer.js';
import { RenewalMarkerRepository } from './memberships/renewal-marker.repository.js';
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

// A replica that missed a `catalog_updated` event serves a changed plan at most this long (ADR 0041).
const PLAN_CACHE_TTL_MS = 30_000;
const MEMBERSHIP_CACHE_TTL_MS = 30_000;
/** Every membership write publishes one of these, with the user in its payload. */
const MEMBERSHIP_EVENTS = [
  'membership_created',
  'membership_renewal_changed',
  'membership_detached',
  'membership_renewed',
  'membership_ended',
  'membership_changed',
] as const;
export { catalogEnv, loadCatalogConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startCatalogService(config: CatalogConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('catalog', config, logger);
  const clientOptions = { defaultDeadlineMs: config.GRPC_DEADLINE_MS };
  const addresses = { accounts: config.ACCOUNTS_ADDR, identity: config.IDENTITY_ADDR, community: config.COMMUNITY_ADDR };
  const { accounts, identity, community } = createClients(['accounts', 'identity', 'community'], addresses, clientOptions);

  const planRows = new PlanRepository(runtime.db);
  const pricingRows = new PricingRepository(runtime.db);
  const membershipRows = new MembershipRepository(runtime.db);
  const history = new MembershipHistoryRepository(runtime.db);
  const claims = new MembershipClaimRepository(runtime.db);
  const detachments = new MembershipDetachmentRepository(runtime.db);
  const renewals = new RenewalMarkerRepository(runtime.db);
  await Promise.all(
    [planRows, pricingRows, membershipRows, history, claims, detachments, renewals].map((repository) => repository.ready()),
  );

  // Public plan reads are cached per resource; a write drops them here at once and, through the
  // event, in every other replica.
  const planCache = new PartitionedReadCache(PLAN_CACHE_TTL_MS);
  // A member's memberships (GET /user, sign-in) are cached per user (ADR 0043); their views
  // carry pricing and plan fields, so a catalog write drops them all.
  const membershipCache = new PartitionedReadCache(MEMBERSHIP_CACHE_TTL_MS, 50_000, 8);
  onEvent(runtime.nats, 'catalog_updated', runtime.logger, (event) => {
    if (typeof event.resource_id === 'number') planCache.invalidate(event.resource_id);
    membershipCache.clear();
  });
  for (const name of MEMBERSHIP_EVENTS) {
    onEvent(runtime.nats, name, runtime.logger, (event) => {
      if (typeof event.payload.user_id === 'number') membershipCache.invalidate(event.payload.user_id);
    });
  }
  const changed = async (resourceId: number): Promise<void> => {
    planCache.invalidate(resourceId);
    membershipCache.clear();
    await runtime.events.publish({ name: 'catalog_updated', resourceId, payload: {} });
  };
  const membershipsChanged = (userId: number) => membershipCache.invalidate(userId);
  const plans = new PlanService({ plans: planRows, pricings: pricingRows, cache: planCache, changed });
  const pricings = new PricingService({ plans: planRows, pricings: pricingRows, changed });
  const reader = new MembershipReader({ memberships: membershipRows, history, pricings: pricingRows, plans: planRows });
  const memberships = new MembershipService({
    pricings: pricingRows,
    memberships: membershipRows,
    reader,
    creator: new MembershipCreator({ memberships: membershipRows, history, claims, events: runtime.events, changed: membershipsChanged }),
    changer: new MembershipChanger({
      memberships: membershipRows,
      history,
      claims,
      detachments,
      renewals,
      pricings: pricingRows,
      events: runtime.events,
      changed: membershipsChanged,
    }),
    cache: membershipCache,
    history,
  });
  const memberViews = memberViewsHandlers({
    userPlans: new UserPlansReader({ memberships: membershipRows, plans: planRows, pricings: pricingRows }),
    teamPlans: new TeamPlansReader({ memberships: membershipRows, plans: planRows, pricings: pricingRows, community }),
    resourceMemberships: new ResourceMembershipsReader({ memberships: membershipRows, reader, accounts, identity }),
  });
  const externalSources = new ExternalSourceLookup({ pricings: pricingRows, plans: planRows, logger: runtime.logger });
  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      { name: 'masthead.catalog.v1.PlansService', definition: PlansServiceService, implementation: plansHandlers(plans) },
      {
        name: 'masthead.catalog.v1.PricingsService',
        definition: PricingsServiceService,
        implementation: pricingsHandlers({ pricings, externalSources }),
      },
      {
        name: 'masthead.catalog.v1.MembershipsService',
        definition: MembershipsServiceService,
        implementation: membershipsHandlers(memberships),
      },
      { name: 'masthead.catalog.v1.MemberViewsService', definition: MemberViewsServiceService, implementation: memberViews },
    ],
    async () => {
      for (const client of [accounts, identity, community]) client.close();
    },
  );
}
