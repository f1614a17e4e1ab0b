import type { Membership } from '@masthead/proto/catalog';
import { describe, expect, it } from 'vitest';
import { entitlementClaims } from '../src/entitlements/entitlement-claims.js';

const NOW = Date.parse('2030-06-01T12:00:00.000Z');
const seconds = (ms: number) => Math.floor(ms / 1000);

/** A membership as catalog answers it, of pricing `pricingId` of plan `planId`. */
const membership = (planId: number, pricingId: number, fields: Partial<Membership> = {}): Membership => ({
  id: pricingId * 10,
  userId: 42,
  resourceId: 7,
  pricing: {
    id: pricingId,
    planId,
    title: `pricing ${pricingId}`,
    price: 100,
    currency: 'USD',
    period: '1 month',
    externalSourceIds: '',
    active: true,
    private: false,
    plan: { id: planId, title: `plan ${planId}`, fullAccess: false, slug: `plan-${planId}` },
    type: 'standard',
  },
  autorenew: false,
  isTeamSubscription: false,
  active: true,
  ...fields,
});

const claimsOf = (memberships: Membership[], assignedTickets: Array<Record<string, unknown>> = []) =>
  entitlementClaims({
    issuer: 'masthead',
    resourceKey: 'news',
    userId: 42,
    sessionId: 9,
    now: NOW,
    tokenTtlMs: 900_000,
    memberships,
    summary: { assignedTickets },
  });

/** The claims identity signs (docs/adr/0246), from the memberships and summary sign-in reads. */
describe('entitlement claims', () => {
  it('names the member, session and resource, valid from now for a lifetime when nothing ends sooner', () => {
    expect(claimsOf([membership(1, 11)])).toEqual({
      iss: 'masthead',
      aud: 'news',
      sub: '42',
      sid: '9',
      iat: seconds(NOW),
      nbf: seconds(NOW),
      exp: seconds(NOW) + 900,
      plans: [{ id: 1, slug: 'plan-1', pricing_id: 11 }],
      team_plans: [],
      passes: [],
    });
  });

  it('lists team seats apart and ends with the earliest-ending membership it lists', () => {
    const soon = NOW + 5 * 60_000;
    const claims = claimsOf([
      membership(1, 11, { subscriptionEndDate: new Date(NOW + 86_400_000).toISOString() }),
      membership(2, 21, { isTeamSubscription: true, subscriptionEndDate: new Date(soon).toISOString() }),
    ]);
    expect(claims.plans).toEqual([{ id: 1, slug: 'plan-1', pricing_id: 11 }]);
    expect(claims.team_plans).toEqual([{ id: 2, slug: 'plan-2', pricing_id: 21 }]);
    expect(claims.exp).toBe(seconds(soon));
  });

  it('leaves out inactive memberships and those whose end has passed, and they bound nothing', () => {
    const claims = claimsOf([
      membership(1, 11, { active: false, subscriptionEndDate: new Date(NOW + 60_000).toISOString() }),
      membership(2, 21, { subscriptionEndDate: new Date(NOW - 1).toISOString() }),
      membership(3, 31),
    ]);
    expect(claims.plans.map((plan) => plan.id)).toEqual([3]);
    expect(claims.exp).toBe(seconds(NOW) + 900);
  });

  it('lists assigned passes by event and ticket, and leaves out one it cannot name', () => {
    const claims = claimsOf(
      [],
      [
        { id: 5, ti_event_id: 2, ticket_id: 4, owner_id: 1, assign_id: 42, extra: {} },
        { id: 'x', ti_event_id: 2, ticket_id: 4 },
      ],
    );
    expect(claims.passes).toEqual([{ id: 5, event_id: 2, ticket_id: 4 }]);
  });
});
