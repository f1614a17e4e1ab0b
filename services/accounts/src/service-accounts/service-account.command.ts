import { parseOrThrow } from '@masthead/core/errors';
import { z } from 'zod';
import { normalizeAction, SERVICE_ACCOUNT_ACTIONS } from './service-account.actions.js';

/**
 * CreateServiceAccount, an operator call. Grants are normalized (method in capitals), must name
 * a service-account action exactly, and repeat at most once; an account needs full access or at
 * least one grant, since one with neither could do nothing. Unknown keys are stripped (the
 * handler builds the object from the proto message).
 */
export const createServiceAccountCommand = z
  .object({
    resourceId: z.number().int().positive('resource_id must be a positive integer'),
    title: z.string().trim().min(1, 'title is required').max(255, 'title: at most 255 characters'),
    fullAccess: z.boolean(),
    grants: z
      .array(
        z
          .string()
          .transform(normalizeAction)
          .refine((action) => SERVICE_ACCOUNT_ACTIONS.includes(action), {
            message: `grants: each one of ${SERVICE_ACCOUNT_ACTIONS.join(', ')}`,
          }),
      )
      .transform((grants) => [...new Set(grants)]),
    userId: z.number().int().positive('user_id must be a positive integer').optional(),
  })
  .refine((command) => command.fullAccess || command.grants.length > 0, {
    message: 'grant at least one action, or full access',
    path: ['grants'],
  });

export type CreateServiceAccountCommand = z.output<typeof createServiceAccountCommand>;

/** 400 `invalid_<first field>` with every bad field listed, like the other operator calls. */
export function parseCreateServiceAccount(input: unknown): CreateServiceAccountCommand {
  return parseOrThrow(createServiceAccountCommand, input);
}
