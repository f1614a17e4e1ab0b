import { z } from 'zod';

/** Why billing takes a purchase line's grant back (docs/adr/0234): catalog's end reasons of the same name. */
export const REVOCATION_REASONS = ['refunded', 'disputed'] as const;
export type RevocationReason = (typeof REVOCATION_REASONS)[number];

/** RevokeTickets and RevokeSponsorship, billing's commands (400 invalid_<field>, ADR 0109). Unknown keys are stripped. */
export const revokeCommand = z.object({
  resourceId: z.number().int().positive('resource_id is required'),
  purchaseKey: z.string().trim().min(1, 'purchase_key is required'),
  reason: z.enum(REVOCATION_REASONS, { message: 'reason: refunded or disputed' }),
});

export type RevokeCommand = z.output<typeof revokeCommand>;
