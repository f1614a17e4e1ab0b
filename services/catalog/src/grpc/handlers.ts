import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery, toWirePaginator } from '@masthead/core/pagination';
import type { CatalogServiceService } from '@masthead/proto/catalog';
import { attachDefaultCommand, grantMembershipCommand } from '../memberships/membership.command.js';
import type { MembershipService } from '../memberships/membership.service.js';
import { upsertPlanCommand } from '../plans/plan.command.js';
import type { PlanService } from '../plans/plan.service.js';
import type { ExternalSourceLookup } from '../pricings/external-source.lookup.js';
import { upsertPricingCommand } from '../pricings/pricing.command.js';
import type { PricingService } from '../pricings/pricing.service.js';
import { parseCommand } from '../support/parse-command.js';
import { toMembership, toMembershipChange, toPlan, toPricing } from './catalog.wire.js';

interface Deps {
  plans: PlanService;
  pricings: PricingService;
  memberships: MembershipService;
  externalSources: ExternalSourceLookup;
}

export function catalogHandlers({
  plans,
  pricings,
  memberships,
  externalSources,
}: Deps): AsyncImplementation<typeof CatalogServiceService> {
  return {
    listPlans: async ({ resourceId, query, admin }) => {
      const page = await plans.listPublic(resourceId, fromPageQuery(query));
      return { items: page.items.map((view) => toPlan(view, admin)), paginator: toWirePaginator(page.paginator) };
    },
    getPlan: async ({ resourceId, planId, admin }) => toPlan(await plans.getActive(resourceId, planId), admin),
    listMemberships: async ({ resourceId, userId, includeHistory }) => {
      const list = await memberships.list(resourceId, userId, includeHistory);
      return { items: list.items.map(toMembership), history: list.history.map(toMembershipChange) };
    },
    attachDefaultMembership: async (request) => ({
      attached: await memberships.attachDefault(parseCommand(attachDefaultCommand, request)),
    }),
    findPricingByExternalSource: async ({ resourceId, externalSourceId, admin }) => {
      const view = await externalSources.find(resourceId, externalSourceId);
      return toPricing(view.pricing, view.plan, admin);
    },
    // Operator calls answer in admin context (timestamps and country_vat included).
    upsertPlan: async (request) => toPlan(await plans.upsert(parseCommand(upsertPlanCommand, request)), true),
    upsertPricing: async (request) => {
      const view = await pricings.upsert(parseCommand(upsertPricingCommand, request));
      return toPricing(view.pricing, view.plan, true);
    },
    grantMembership: async (request) => toMembership(await memberships.grant(parseCommand(grantMembershipCommand, request))),
  };
}
