import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery, toWirePaginator } from '@masthead/core/pagination';
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
    listPlans: async ({ resourceId, query, admin }) => {
      const page = await plans.listPublic(resourceId, fromPageQuery(query));
      return { items: page.items.map((view) => toPlan(view, admin)), paginator: toWirePaginator(page.paginator) };
    },
    getPlan: async ({ resourceId, planId, admin }) => toPlan(await plans.getActive(resourceId, planId), admin),
    listMemberships: async ({ resourceId, userId, includeHistory, admin }) => {
      const list = await memberships.list(resourceId, userId, includeHistory);
      return { items: list.items.map((view) => toMembership(view, admin)), history: list.history.map(toMembershipChange) };
    },
    attachDefaultMembership: async (request) => ({
      attached: await memberships.attachDefault(parseOrThrow(attachDefaultCommand, request)),
    }),

    listUserPlans: async ({ resourceId, userId, query, admin }) => {
      const page = await userPlans.list(resourceId, userId, fromPageQuery(query));
      return { items: page.items.map((view) => toUserPlan(view, admin)), paginator: toWirePaginator(page.paginator) };
    },
    listTeamPlans: async ({ resourceId, userId, teamId, query, admin }, call) => {
      const page = await teamPlans.list(resourceId, userId, teamId, fromPageQuery(query), call);
      return { items: page.items.map((view) => toPlan(view, admin, { usersLimit: true })), paginator: toWirePaginator(page.paginator) };
    },
    listEmbeddedPlans: async ({ resourceId, admin }) => ({
      items: (await plans.listEmbedded(resourceId)).map((view) => toPlan(view, admin)),
    }),
    listPricings: async ({ resourceId, query, admin }) => {
      const page = await pricings.listPublic(resourceId, fromPageQuery(query));
      return {
        items: page.items.map(({ pricing, plan }) => toPricing(pricing, plan, admin)),
        paginator: toWirePaginator(page.paginator),
      };
    },
    getPricing: async ({ resourceId, pricingId, admin }) => {
      const { pricing, plan } = await pricings.getVisible(resourceId, pricingId);
      return toPricing(pricing, plan, admin);
    },
    setMembershipRenewal: async ({ resourceId, userId, membershipId, autorenew, admin }) =>
      toMembership(await memberships.setRenewal({ resourceId, userId, membershipId }, autorenew), admin),
    detachMembership: async ({ resourceId, userId, membershipId, admin }) =>
      toMembership(await memberships.detach({ resourceId, userId, membershipId }), admin),
    listMembershipHistory: async ({ resourceId, userId, query }) => {
      const page = await memberships.history(resourceId, userId, fromPageQuery(query));
      return { items: page.items.map(toMembershipChange), paginator: toWirePaginator(page.paginator) };
    },
    listResourceMemberships: async ({ userId, partnerId, query, admin }, call) => {
      const page = await resourceMemberships.list(userId, partnerId, fromPageQuery(query), call);
      return { items: page.items.map((view) => toResourceMemberships(view, admin)), paginator: toWirePaginator(page.paginator) };
    },

    findPricingByExternalSource: async ({ resourceId, externalSourceId, admin }) => {
      const view = await externalSources.find(resourceId, externalSourceId);
      return toPricing(view.pricing, view.plan, admin);
    },
    // Operator calls answer in admin context (timestamps and country_vat included).
    upsertPlan: async (request) => toPlan(await plans.upsert(parseOrThrow(upsertPlanCommand, request)), true),
    upsertPricing: async (request) => {
      const view = await pricings.upsert(parseOrThrow(upsertPricingCommand, request));
      return toPricing(view.pricing, view.plan, true);
    },
    canOwnTeams: async ({ resourceId, userId }) => ({ eligible: await teamPlans.canOwnTeams(resourceId, userId) }),
    grantMembership: async (request) => toMembership(await memberships.grant(parseOrThrow(grantMembershipCommand, request))),
  };
}
