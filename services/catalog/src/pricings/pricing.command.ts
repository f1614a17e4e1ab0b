import { z } from 'zod';
import { parsePeriod } from './period.js';
import { PRICING_TYPES } from './pricing.schema.js';

/** "a, b,,c" → "a,b,c": the list is stored as the comma-separated string the API returns. */
const normalizeSourceIds = (text: string) =>
  text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '')
    .join(',');

/**
 * UpsertPricing, an operator call: the pricing is found by plan + title and created or updated.
 * Unknown keys are stripped (the handler builds the object from the proto message).
 */
export const upsertPricingCommand = z.object({
  planId: z.number().int().positive('plan_id must be a positive integer'),
  title: z.string().trim().min(1, 'title is required').max(255, 'title: at most 255 characters'),
  // Minor units as an integer (DESIGN.md "Money"); int64 arrives as a JS number.
  price: z.number().refine((value) => Number.isSafeInteger(value) && value >= 0, 'price must be a non-negative integer in minor units'),
  currency: z
    .string()
    .trim()
    .regex(/^[A-Z]{3}$/, 'currency: three uppercase letters (ISO 4217)'),
  period: z
    .string()
    .trim()
    .refine((value) => parsePeriod(value) !== null, 'period: "N day(s)", "N week(s)", "N month(s)" or "N year(s)"'),
  active: z.boolean(),
  private: z.boolean(),
  externalSourceIds: z.string().transform(normalizeSourceIds),
  usersLimit: z.number().int().nonnegative('users_limit must be a non-negative integer').optional(),
  countryVat: z.string().trim().max(64, 'country_vat: at most 64 characters').optional(),
  /** Absent keeps the stored type (`standard` on create). */
  type: z.enum(PRICING_TYPES, { message: `type: one of ${PRICING_TYPES.join(', ')}` }).optional(),
});

export type UpsertPricingCommand = z.output<typeof upsertPricingCommand>;
