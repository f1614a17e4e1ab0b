import { z } from 'zod';

/** Operator commands (UpsertEvent, UpsertTicket): bad input is 400 invalid_<field> (ADR 0109). */

const isoDate = z
  .string()
  .optional()
  .transform((value, ctx) => {
    if (!value) return null;
    const date = new Date(value);
    if (Number.isNaN(date.getTime())) {
      ctx.addIssue({ code: z.ZodIssueCode.custom, message: 'must be an ISO 8601 date' });
      return z.NEVER;
    }
    return date;
  });

const title = z.string().trim().min(1, 'title is required').max(255, 'title is at most 255 characters');
const description = z
  .string()
  .optional()
  .transform((value) => value?.trim() || null);

export const upsertEventCommand = z
  .object({
    resourceId: z.number().int().positive('resource_id is required'),
    title,
    description,
    active: z.boolean(),
    photo: z.array(z.string().trim().url('photo items must be URLs')).max(20, 'at most 20 photos'),
    startDate: isoDate,
    endDate: isoDate,
  })
  .refine((event) => !event.startDate || !event.endDate || event.endDate >= event.startDate, {
    message: 'end_date must not be before start_date',
    path: ['endDate'],
  });

export const upsertTicketCommand = z.object({
  tiEventId: z.number().int().positive('ti_event_id is required'),
  title,
  description,
  quantity: z.number().int().min(0, 'quantity must be 0 or more'),
  price: z.number().int().min(0, 'price is an integer amount in minor units'),
  currency: z.string().regex(/^[A-Z]{3}$/, 'currency is a three-letter code'),
  active: z.boolean(),
  private: z.boolean(),
  unassignLimit: z.number().int().min(0, 'unassign_limit must be 0 or more'),
});
