import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { CatalogServiceService } from '@masthead/proto/catalog';
import type { ResourceMembershipsReader } from '../member-views/resource-memberships.reader.js';
import type { TeamPlansReader } from '../member-views/team-plans.reader.js';
import type { UserPlansReader } from '../member-views/user-plans.reader.js';
import { attachDefaultCommand, grantMembershipCommand } from '../memberships/membership.command.js';
import type { MembershipService } from '../memberships/membership.service.js';
import { upsertPlanCommand } from '../plans/plan.command.js';
import type { PlanService } from '../plans/plan.service.js';
import type { ExternalSourceLookup } from '../pricings/external-source.lookup.js';
import { upsertPricingCommand } from '../pricings/pricing.command.js';
import type { PricingService } from '../pricings/pricing.service.js';
import { toMembership, toMembershipChange, toPlan, toPricing, toResourceMemberships, toUserPlan } from './catalog.wire.js';

interface Deps {
  plans: PlanService;
  pricings: PricingService;
  memberships: MembershipService;
  userPlans: UserPlansReader;
  teamPlans: TeamPlansReader;
  resourceMemberships: ResourceMembershipsReader;
  externalSources: ExternalSourceLookup;
}

export function catalogHandlers(deps: Deps): AsyncImplementation<typeof CatalogServiceService> {
  const { plans, pricings, memberships, userPlans, teamPlans, resourceMemberships, externalSources } = deps;
  return {
    listPlans: async ({ resourceId, query }) => {
      const page = await plans.listPublic(resourceId, fromPageQuery(query));
      return { items: page.items.map(toPlan), paginator: page.paginator };
    },
    getPlan: async ({ resourceId, planId }) => toPlan(await plans.getActive(resourceId, planId)),
    listMemberships: async ({ resourceId, userId, includeHistory }) => {
      const list = await memberships.list(resourceId, userId, includeHistory);
      return { items: list.items.map(toMembership), history: list.history.map(toMembershipChange) };
    },
    attachDefaultMembership: async (request) => ({
      attached: await memberships.attachDefault(parseOrThrow(attachDefaultCommand, request)),
    }),

    listUserPlans: async ({ resourceId, userId, query }) => {
      const page = await userPlans.list(resourceId, userId, fromPageQuery(query));
      return { items: page.items.map(toUserPlan), paginator: page.paginator };
    },
    listTeamPlans: async ({ resourceId, userId, teamId, query }, call) => {
      const page = await teamPlans.list(resourceId, userId, teamId, fromPageQuery(query), call);
      return { items: page.items.map(toPlan), paginator: page.paginator };
    },
    listEmbeddedPlans: async ({ resourceId }) => ({
      items: (await plans.listEmbedded(resourceId)).map(toPlan),
    }),
    listPricings: async ({ resourceId, query }) => {
      const page = await pricings.listPublic(resourceId, fromPageQuery(query));
      return {
        items: page.items.map(({ pricing, plan }) => toPricing(pricing, plan)),
        paginator: page.paginator,
      };
    },
    getPricing: async ({ resourceId, pricingId }) => {
      const { pricing, plan } = await pricings.getVisible(resourceId, pricingId);
      return toPricing(pricing, plan);
    },
    setMembershipRenewal: async ({ resourceId, userId, membershipId, autorenew }) =>
      toMembership(await memberships.setRenewal({ resourceId, userId, membershipId }, autorenew)),
    detachMembership: async ({ resourceId, userId, membershipId }) =>
      toMembership(await memberships.detach({ resourceId, userId, membershipId })),
    listMembershipHistory: async ({ resourceId, userId, query }) => {
      const page = await memberships.history(resourceId, userId, fromPageQuery(query));
      return { items: page.items.map(toMembershipChange), paginator: page.paginator };
    },
    listResourceMemberships: async ({ userId, partnerId, query }, call) => {
      const page = await resourceMemberships.list(userId, partnerId, fromPageQuery(query), call);
      return { items: page.items.map(toResourceMemberships), paginator: page.paginator };
    },

    findPricingByExternalSource: async ({ resourceId, externalSourceId }) => {
      const view = await externalSources.find(resourceId, externalSourceId);
      return toPricing(view.pricing, view.plan);
    },
    upsertPlan: async (request) => toPlan(await plans.upsert(parseOrThrow(upsertPlanCommand, request))),
    upsertPricing: async (request) => {
      const view = await pricings.upsert(parseOrThrow(upsertPricingCommand, request));
      return toPricing(view.pricing, view.plan);
    },
    canOwnTeams: async ({ resourceId, userId }) => ({ eligible: await teamPlans.canOwnTeams(resourceId, userId) }),
    grantMembership: async (request) => toMembership(await memberships.grant(parseOrThrow(grantMembershipCommand, request))),
  };
}
