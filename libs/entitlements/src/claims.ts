import type { JWTPayload } from 'jose';

/**
 * The `typ` header of an entitlement token (RFC 8725, section 3.11: explicit typing), so that no
 * other JWT signed with the same keys, such as a revocation list, passes for one.
 */
export const ENTITLEMENT_TOKEN_TYPE = 'masthead-entitlement+jwt';
/** The `typ` header of a revocation list. */
export const REVOCATION_LIST_TYPE = 'masthead-revocations+jwt';
/** The only algorithm Masthead signs with (Ed25519); anything else (`none`, HS256 …) is refused unread. */
export const SIGNING_ALGORITHMS = ['EdDSA'] as const;

/** A plan the member holds in the resource, through one of its pricings. */
export interface PlanEntitlement {
  /** Plan ID. */
  id: number;
  slug: string;
  pricing_id: number;
}

/** An event pass assigned to the member (owning a pass is not attending; assignment is). */
export interface PassEntitlement {
  id: number;
  event_id: number;
  ticket_id: number;
}

/**
 * What a verified entitlement token says (schema/entitlement-token.schema.json, the OpenAPI
 * document's `EntitlementClaims`). `exp` is at most 15 minutes after `iat`, and never past the end
 * of the earliest-ending membership listed.
 */
export interface EntitlementClaims {
  iss: string;
  /** The resource's public key. */
  aud: string;
  /** The member's user ID, as a string (RFC 7519). */
  sub: string;
  /** The session the token was issued for, as a string. */
  sid: string;
  iat: number;
  nbf: number;
  exp: number;
  /** Active memberships bought or granted to the member. */
  plans: PlanEntitlement[];
  /** Active memberships the member holds as a seat of a team. */
  team_plans: PlanEntitlement[];
  passes: PassEntitlement[];
}

const isInteger = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value);
const isString = (value: unknown): value is string => typeof value === 'string';

const isPlan = (value: unknown): value is PlanEntitlement => {
  const plan = value as Partial<PlanEntitlement> | null;
  return typeof plan === 'object' && plan !== null && isInteger(plan.id) && isString(plan.slug) && isInteger(plan.pricing_id);
};

const isPass = (value: unknown): value is PassEntitlement => {
  const pass = value as Partial<PassEntitlement> | null;
  return typeof pass === 'object' && pass !== null && isInteger(pass.id) && isInteger(pass.event_id) && isInteger(pass.ticket_id);
};

const listOf = <T>(value: unknown, check: (item: unknown) => item is T): value is T[] => Array.isArray(value) && value.every(check);

/**
 * The claims of a payload whose signature and registered claims jose has checked, or null when its
 * shape is not an entitlement token's (a payload of another issuer's software signed with the
 * same keys would otherwise reach the paywall half-read).
 */
export function entitlementClaimsOf(payload: JWTPayload): EntitlementClaims | null {
  const { iss, aud, sub, sid, iat, nbf, exp, plans, team_plans: teamPlans, passes } = payload as Record<string, unknown>;
  const registered = isString(iss) && isString(aud) && isString(sub) && isString(sid) && isInteger(iat) && isInteger(nbf) && isInteger(exp);
  if (!registered || !listOf(plans, isPlan) || !listOf(teamPlans, isPlan) || !listOf(passes, isPass)) return null;
  return { iss, aud, sub, sid, iat, nbf, exp, plans, team_plans: teamPlans, passes };
}

/** Whether the member holds the plan (by slug or ID), bought or through a team. */
export const hasPlan = (claims: EntitlementClaims, plan: string | number): boolean =>
  [...claims.plans, ...claims.team_plans].some((held) => (typeof plan === 'number' ? held.id === plan : held.slug === plan));

/** Whether a pass of the event is assigned to the member. */
export const hasEventPass = (claims: EntitlementClaims, eventId: number): boolean =>
  claims.passes.some((pass) => pass.event_id === eventId);
