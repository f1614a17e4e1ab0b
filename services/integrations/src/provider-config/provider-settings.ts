import { z } from 'zod';

/**
 * The non-secret settings of each provider, as operators set them and as the operations read
 * them. A stored value that no longer parses reads as "not configured" (never a crash).
 */

const trimmed = (max: number) => z.string().trim().max(max);

export const audienceSettings = z.object({
  list_id: trimmed(64).min(1, 'list_id is required'),
  interest_category: trimmed(255).default(''),
  /** The data center (`us21`); empty: the API key's suffix names it. */
  server: z
    .string()
    .trim()
    .regex(/^([a-z]{2,4}\d{1,3})?$/, 'server must be a data center such as us21')
    .default(''),
});
export type AudienceSettings = z.output<typeof audienceSettings>;

export const crmSettings = z.object({
  /** May be empty: the member reads then answer their 409 (document 2 H). */
  account_name: z
    .string()
    .trim()
    .regex(/^([a-z0-9][a-z0-9-]{0,62})?$/i, 'account_name must be the provider account name (letters, digits, -)')
    .default(''),
  active: z.boolean().default(false),
});
export type CrmSettings = z.output<typeof crmSettings>;

/**
 * Where a list custom field's value comes from: a member profile field, or `extra.<name>` of the
 * member's relationship extra with this resource.
 */
export const MEMBER_FIELDS = [
  'email',
  'first_name',
  'last_name',
  'nick_name',
  'phone',
  'company',
  'job',
  'country',
  'state',
  'city',
  'address',
  'zip',
] as const;
const fieldSource = z
  .string()
  .trim()
  .refine(
    (source) => (MEMBER_FIELDS as readonly string[]).includes(source) || /^extra\.[\w.-]{1,64}$/.test(source),
    `source must be one of ${MEMBER_FIELDS.join(', ')} or extra.<name>`,
  );

export const listmgrSettings = z.object({
  client_id: trimmed(64).default(''),
  custom_fields: z
    .array(z.object({ key: trimmed(100).min(1, 'key is required'), source: fieldSource }))
    .max(50)
    .default([]),
  consent_to_track: z.enum(['Yes', 'No', 'Unchanged']).default('Unchanged'),
});
export type ListmgrSettings = z.output<typeof listmgrSettings>;

/** The list manager's OAuth tokens, sealed together as one secret. */
export const listmgrTokens = z.object({
  access_token: z.string().trim().min(1, 'access_token is required').max(4096),
  refresh_token: z.string().trim().max(4096).default(''),
});
export type ListmgrTokens = z.output<typeof listmgrTokens>;

/** The stored tokens, or null when the secret does not read as them. */
export function readListmgrTokens(secret: string | null | undefined): ListmgrTokens | null {
  if (!secret) return null;
  try {
    const parsed = listmgrTokens.safeParse(JSON.parse(secret));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
