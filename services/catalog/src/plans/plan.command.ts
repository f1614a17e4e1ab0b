import { z } from 'zod';

const SLUG = /^[A-Za-z0-9][A-Za-z0-9_-]{0,127}$/;

/**
 * UpsertPlan, an operator call: the plan is found by resource + slug and created or updated.
 * Unknown keys are stripped (the handler builds the object from the proto message).
 */
export const upsertPlanCommand = z.object({
  resourceId: z.number().int().positive('resource_id must be a positive integer'),
  slug: z.string().trim().regex(SLUG, 'slug: 1-128 letters, digits, - or _, starting with a letter or digit'),
  title: z.string().trim().min(1, 'title is required').max(255, 'title: at most 255 characters'),
  active: z.boolean(),
  private: z.boolean(),
  fullAccess: z.boolean(),
  /** 0 clears the parent; absent keeps the stored value (none on create). */
  parentPlanId: z.number().int().nonnegative('parent_plan_id must be a non-negative integer').optional(),
  canOwnTeams: z.boolean().optional(),
});

export type UpsertPlanCommand = z.output<typeof upsertPlanCommand>;
