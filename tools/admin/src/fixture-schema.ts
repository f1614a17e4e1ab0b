import { z } from 'zod';

/** Pricing of a plan; `price` in the currency's minor unit (an integer, never a float). */
const pricingSchema = z.object({
  title: z.string().min(1),
  price: z.number().int().min(0),
  currency: z.string().regex(/^[A-Z]{3}$/),
  period: z.string().min(1),
  active: z.boolean().default(true),
  private: z.boolean().default(false),
  external_source_ids: z.string().default(''),
  /** Seats of a team pricing (shown on team plan lists); absent: no limit. */
  users_limit: z.number().int().min(0).optional(),
  /** `standard` (default), `gift`, `team` or `event_pass` (docs/adr/0140). */
  type: z.enum(['standard', 'gift', 'team', 'event_pass']).optional(),
});

const planSchema = z
  .object({
    slug: z.string().min(1),
    title: z.string().min(1),
    active: z.boolean().default(true),
    private: z.boolean().default(false),
    full_access: z.boolean().default(false),
    /** A membership of this plan lets a member own teams (a team plan). */
    can_own_teams: z.boolean().default(false),
    /** Slug of the parent plan, listed earlier in the same resource (a team plan's seat plans). */
    parent: z.string().min(1).optional(),
    pricings: z.array(pricingSchema.strict()).default([]),
  })
  .strict();

/** A ticket of an event; `price` in minor units; `unassign_limit`: how often an owner may take a pass back. */
const ticketSchema = z.object({
  title: z.string().min(1),
  description: z.string().optional(),
  quantity: z.number().int().min(0),
  price: z.number().int().min(0),
  currency: z.string().regex(/^[A-Z]{3}$/),
  active: z.boolean().default(true),
  private: z.boolean().default(false),
  unassign_limit: z.number().int().min(0).default(1),
});

/** A ticketed event (document 2 F); the resource needs the setting `ti_events_system`. */
const tiEventSchema = z.object({
  title: z.string().min(1),
  description: z.string().optional(),
  active: z.boolean().default(true),
  photo: z.array(z.string().url()).default([]),
  start_date: z.string().optional(),
  end_date: z.string().optional(),
  tickets: z.array(ticketSchema.strict()).default([]),
});

/** A reference to a Pricing by plan slug and pricing title, resolved to IDs at load time. */
const pricingRef = z.object({ plan: z.string(), pricing: z.string() });

const memberSchema = z.object({
  email: z.string().email(),
  password: z.string().min(8),
  role: z.enum(['user', 'admin', 'partner', 'root']).default('user'),
  first_name: z.string().optional(),
  last_name: z.string().optional(),
  memberships: z.array(pricingRef.extend({ autorenew: z.boolean().default(false) })).default([]),
});

const resourceSchema = z.object({
  public_key: z.string().min(3),
  title: z.string().min(1),
  host: z.string().optional(),
  origin: z.string().optional(),
  allowed_origins: z.array(z.string()).default([]),
  settings: z.record(z.unknown()).default({}),
  /** Sets `default_subscription_id` once the Pricing exists. */
  default_subscription: pricingRef.optional(),
  plans: z.array(planSchema).default([]),
  members: z.array(memberSchema).default([]),
  ti_events: z.array(tiEventSchema.strict()).default([]),
  /**
   * Card-provider secret keys per mode, stored sealed by billing (docs/adr/0120). Only for
   * development fixtures and the local fake's key: a real key never belongs in a file.
   */
  cardprovider_secret_keys: z.object({ test: z.string().optional(), live: z.string().optional() }).strict().default({}),
});

// Unknown keys are refused (strict) so that a typo in a fixture is an error, not a silent no-op.
export const fixtureSchema = z
  .object({
    /** Marks data that must never reach production (demo passwords). */
    development_only: z.boolean().default(false),
    description: z.string().optional(),
    partners: z.array(z.object({ title: z.string().min(1), resources: z.array(resourceSchema.strict()).default([]) }).strict()),
  })
  .strict();

export type Fixture = z.infer<typeof fixtureSchema>;
export type ResourceFixture = z.infer<typeof resourceSchema>;
