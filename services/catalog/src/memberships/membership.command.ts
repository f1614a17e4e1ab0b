import { z } from 'zod';

const positiveId = (field: string) => z.number().int().positive(`${field} must be a positive integer`);

/** Date-only (UTC midnight) or a date-time with Z or an offset, so that no local zone is guessed. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2}))?$/;

/** AttachDefaultMembership. Unknown keys are stripped (built from the proto message). */
export const attachDefaultCommand = z.object({
  resourceId: positiveId('resource_id'),
  userId: positiveId('user_id'),
  pricingId: z.number().int(),
  singleSubscription: z.boolean(),
});

/**
 * GrantMembership, an operator call. `endDate` absent or "" means "after the pricing's period",
 * as for a default membership (see CONTEXT.md).
 */
export const grantMembershipCommand = z.object({
  resourceId: positiveId('resource_id'),
  userId: positiveId('user_id'),
  pricingId: positiveId('pricing_id'),
  autorenew: z.boolean(),
  endDate: z
    .string()
    .trim()
    .optional()
    .refine((text) => !text || (ISO_8601.test(text) && !Number.isNaN(Date.parse(text))), 'end_date must be an ISO 8601 date')
    .transform((text) => (text ? new Date(text) : null))
    .refine((date) => date === null || date.getTime() > Date.now(), 'end_date must be in the future'),
  /** Who grants (carried in membership_created): an operator, billing's checkout, an external store. */
  source: z.enum(['grant', 'purchase', 'external'], { message: 'source: grant, purchase or external' }).default('grant'),
});

export type AttachDefaultCommand = z.output<typeof attachDefaultCommand>;
export type GrantMembershipCommand = z.output<typeof grantMembershipCommand>;
