import { z } from 'zod';

/** Longest write-off reason kept: a sentence or two for the audit record. */
export const WRITE_OFF_REASON_MAX = 500;

/** WriteOffOwedRefund, an operator call (masthead-admin write-off-owed-refund). Unknown keys are stripped. */
export const writeOffCommand = z.object({
  key: z.string().trim().min(1, 'key is required'),
  reason: z
    .string()
    .trim()
    .min(1, 'reason is required: how the member was paid back')
    .max(WRITE_OFF_REASON_MAX, `reason: at most ${WRITE_OFF_REASON_MAX} characters`),
});

export type WriteOffCommand = z.output<typeof writeOffCommand>;
