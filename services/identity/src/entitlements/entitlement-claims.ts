import type { EntitlementClaims, PassEntitlement, PlanEntitlement } from '@masthead/entitlements';
import type { Membership } from '@masthead/proto/catalog';
import type { MemberSummary } from '@masthead/proto/community';

export interface ClaimsInput {
  issuer: string;
  /** The resource's public key. */
  resourceKey: string;
  userId: number;
  sessionId: number;
  /** Milliseconds since the epoch. */
  now: number;
  tokenTtlMs: number;
  /** What the member holds in the resource: the memberships and summary sign-in reads (ADR 0191). */
  memberships: readonly Membership[];
  summary: Pick<MemberSummary, 'assignedTickets'> | undefined;
}

const isId = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;

/** An assigned pass of the member summary (`{id, ti_event_id, ticket_id, …}`), or null for one it cannot name. */
function passOf(pass: Record<string, unknown>): PassEntitlement | null {
  const { id, ti_event_id: eventId, ticket_id: ticketId } = pass;
  return isId(id) && isId(eventId) && isId(ticketId) ? { id, event_id: eventId, ticket_id: ticketId } : null;
}

/**
 * The claims of a member's token (docs/adr/0246): active memberships whose end date is still
 * ahead, bought or granted (`plans`) and held as a team seat (`team_plans`), and assigned passes.
 * `exp` is a token lifetime away, or the end of the earliest-ending membership listed if sooner.
 * A membership the catalog still calls active but whose end date has passed (a renewal being
 * settled) is not listed: its renewal drops the member's cached view, and the next token lists it.
 */
export function entitlementClaims(input: ClaimsInput): EntitlementClaims {
  const iat = Math.floor(input.now / 1000);
  let exp = Math.floor((input.now + input.tokenTtlMs) / 1000);
  const plans: PlanEntitlement[] = [];
  const teamPlans: PlanEntitlement[] = [];
  for (const membership of input.memberships) {
    const pricing = membership.pricing;
    if (!membership.active || !pricing) continue;
    const endsAt = membership.subscriptionEndDate ? Date.parse(membership.subscriptionEndDate) : Number.NaN;
    if (endsAt <= input.now) continue;
    if (Number.isFinite(endsAt)) exp = Math.min(exp, Math.floor(endsAt / 1000));
    const claim = { id: pricing.planId, slug: pricing.plan?.slug ?? '', pricing_id: pricing.id };
    (membership.isTeamSubscription ? teamPlans : plans).push(claim);
  }
  const passes = (input.summary?.assignedTickets ?? []).map(passOf).filter((pass) => pass !== null);
  return {
    iss: input.issuer,
    aud: input.resourceKey,
    sub: String(input.userId),
    sid: String(input.sessionId),
    iat,
    nbf: iat,
    exp,
    plans,
    team_plans: teamPlans,
    passes,
  };
}
