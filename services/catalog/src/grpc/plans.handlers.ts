import { parseOrThrow } from '@masthead/core/errors';
import { answerCache, type AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { PlansServiceService } from '@masthead/proto/catalog/plans';
import { upsertPlanCommand } from '../plans/plan.command.js';
import type { PlanPageView, PlanService } from '../plans/plan.service.js';
import { toPlan } from './catalog.wire.js';

export function plansHandlers(plans: PlanService): AsyncImplementation<typeof PlansServiceService> {
  // Public reads come from the plan cache, the same view on every hit: mapped and encoded once.
  const pageAnswer = answerCache(({ items, paginator }: PlanPageView) => ({ items: items.map(toPlan), paginator }));
  const planAnswer = answerCache(toPlan);
  return {
    listPlans: async ({ resourceId, query }) => pageAnswer(await plans.listPublic(resourceId, fromPageQuery(query))),
    getPlan: async ({ resourceId, planId }) => planAnswer(await plans.getActive(resourceId, planId)),
    listEmbeddedPlans: async ({ resourceId }) => ({
      items: (await plans.listEmbedded(resourceId)).map(toPlan),
    }),
    upsertPlan: async (request) => toPlan(await plans.upsert(parseOrThrow(upsertPlanCommand, request))),
  };
}
