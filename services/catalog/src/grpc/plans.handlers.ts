import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { PlansServiceService } from '@masthead/proto/catalog/plans';
import { upsertPlanCommand } from '../plans/plan.command.js';
import type { PlanService } from '../plans/plan.service.js';
import { toPlan } from './catalog.wire.js';

export function plansHandlers(plans: PlanService): AsyncImplementation<typeof PlansServiceService> {
  return {
    listPlans: async ({ resourceId, query }) => {
      const page = await plans.listPublic(resourceId, fromPageQuery(query));
      return { items: page.items.map(toPlan), paginator: page.paginator };
    },
    getPlan: async ({ resourceId, planId }) => toPlan(await plans.getActive(resourceId, planId)),
    listEmbeddedPlans: async ({ resourceId }) => ({
      items: (await plans.listEmbedded(resourceId)).map(toPlan),
    }),
    upsertPlan: async (request) => toPlan(await plans.upsert(parseOrThrow(upsertPlanCommand, request))),
  };
}
