import { defineError } from '@masthead/core/errors';

// plan_not_found is raised by the gateway as well: `planNotFound` lives in @masthead/core/errors.

/** Thrown by UpsertPlan when `parent_plan_id` names no usable parent (see PlanService.upsert). */
export const invalidParentPlan = defineError(
  { status: 400, code: 'invalid_parent_plan_id', description: 'parent_plan_id: <reason>' },
  (reason: string) => ({ description: `parent_plan_id: ${reason}`, fields: { parent_plan_id: reason } }),
);
