import { httpError, ServiceError } from '@masthead/core/errors';

/** Thrown when a plan is absent, inactive (for member-facing reads) or of another resource. */
export const planNotFound = () => httpError(404, 'plan_not_found', 'Plan not found');

/** Thrown by UpsertPlan when `parent_plan_id` names no usable parent (see PlanService.upsert). */
export const invalidParentPlan = (reason: string) =>
  new ServiceError({
    status: 400,
    code: 'invalid_parent_plan_id',
    description: `parent_plan_id: ${reason}`,
    fields: { parent_plan_id: reason },
  });
