import { z } from 'zod';
import { END_REASONS } from './history.schema.js';

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

const membershipTarget = {
  resourceId: positiveId('resource_id'),
  userId: positiveId('user_id'),
  membershipId: z.number().int(),
};

const isoDate = (field: string) =>
  z
    .string()
    .trim()
    .refine((text) => ISO_8601.test(text) && !Number.isNaN(Date.parse(text)), `${field} must be an ISO 8601 date`)
    .transform((text) => new Date(text));

/** RenewMembership (billing): the end date being renewed. */
export const renewMembershipCommand = z.object({ ...membershipTarget, fromEndDate: isoDate('from_end_date') });

/** EndMembership (billing): why it ends. */
export const endMembershipCommand = z.object({
  ...membershipTarget,
  reason: z.enum(END_REASONS, { message: `reason: one of ${END_REASONS.join(', ')}` }),
});

/** ChangeMembershipTerms (billing, external stores): a new end date and/or autorenew. */
export const changeTermsCommand = z.object({
  ...membershipTarget,
  endDate: isoDate('end_date').optional(),
  autorenew: z.boolean().optional(),
});

export type AttachDefaultCommand = z.output<typeof attachDefaultCommand>;
export type GrantMembershipCommand = z.output<typeof grantMembershipCommand>;
