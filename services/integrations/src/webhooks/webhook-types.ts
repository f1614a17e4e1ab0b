import type { DomainEvent, DomainEvents, EventName } from '@masthead/core/events';

/** What an endpoint receives for one domain event: its type and the `data` of the body. */
interface WebhookRoute<N extends EventName> {
  type: string;
  /** Only what a publisher needs about its member: IDs and labels, never codes or tokens. */
  data: (payload: DomainEvents[N]) => Record<string, unknown>;
}

/** What every membership webhook says of its membership. */
const membership = (p: DomainEvents['membership_detached']) => ({
  membership_id: p.membership_id,
  user_id: p.user_id,
  subscription_id: p.pricing_id,
  plan_id: p.plan_id,
});

/** What every payment webhook says of its transaction (a checkout's, a renewal's). */
const payment = (p: DomainEvents['transaction_succeeded']) => ({
  transaction_id: p.transaction_id,
  user_id: p.user_id,
  kind: p.kind,
  amount: p.amount,
  currency: p.currency,
});
const paymentChange = (p: DomainEvents['transaction_refunded']) => ({
  transaction_id: p.transaction_id,
  user_id: p.user_id,
  status: p.status,
  amount_refunded: p.amount_refunded,
  dispute_status: p.dispute_status,
});

/**
 * Domain events → webhook types (docs/adr/0173). One row per event a publisher may subscribe
 * to; a new event of the catalogue becomes a webhook by adding its row here. Payments, renewals,
 * tickets and sponsorships were added with issue 12 (docs/adr/0159). `subscription_id` is a Pricing ID, as the public API names it.
 */
const ROUTES: { [N in EventName]?: WebhookRoute<N> } = {
  user_signup: { type: 'member.signed_up', data: (p) => ({ user_id: p.user_id, source_type: p.source_type }) },
  user_login: { type: 'member.logged_in', data: (p) => ({ user_id: p.user_id, session_id: p.session_id, source_type: p.source_type }) },
  user_profile_updated: { type: 'member.profile_updated', data: (p) => ({ user_id: p.user_id, fields: p.fields }) },
  user_marketing_opt_ins_changed: { type: 'member.marketing_changed', data: (p) => ({ user_id: p.user_id, opt_ins: p.opt_ins }) },
  member_suspended: { type: 'member.suspended', data: (p) => ({ user_id: p.user_id }) },
  member_profile_removed: { type: 'member.removed', data: (p) => ({ user_id: p.user_id }) },
  membership_created: { type: 'membership.created', data: (p) => ({ ...membership(p), source: p.source }) },
  membership_renewal_changed: { type: 'membership.renewal_changed', data: (p) => ({ ...membership(p), autorenew: p.autorenew }) },
  membership_detached: { type: 'membership.cancelled', data: membership },
  user_add_payment_method: {
    type: 'payment_method.added',
    data: (p) => ({ user_id: p.user_id, payment_method_id: p.payment_method_id, pay_system: p.pay_system, mode: p.mode }),
  },
  renewal_succeeded: {
    type: 'membership.renewed',
    data: (p) => ({ membership_id: p.membership_id, user_id: p.user_id, transaction_id: p.transaction_id, period_end: p.period_end }),
  },
  renewal_failed: {
    type: 'membership.renewal_failed',
    data: (p) => ({
      membership_id: p.membership_id,
      user_id: p.user_id,
      transaction_id: p.transaction_id,
      attempt: p.attempt,
      next_attempt_at: p.next_attempt_at,
      error: p.error,
    }),
  },
  membership_lapsed: { type: 'membership.lapsed', data: (p) => ({ membership_id: p.membership_id, user_id: p.user_id, reason: p.reason }) },
  transaction_succeeded: { type: 'payment.succeeded', data: payment },
  transaction_failed: { type: 'payment.failed', data: (p) => ({ ...payment(p), error: p.error }) },
  transaction_refunded: { type: 'payment.refunded', data: paymentChange },
  transaction_disputed: { type: 'payment.disputed', data: paymentChange },
  team_owner_create_team: { type: 'team.created', data: (p) => ({ team_id: p.team_id, owner_id: p.owner_id, name: p.name }) },
  individual_in_team_invite: {
    type: 'invitation.created',
    data: (p) => ({ invite_id: p.invite_id, team_id: p.team_id, email: p.email, inviter_id: p.inviter_id }),
  },
  invite_activated: {
    type: 'invitation.activated',
    data: (p) => ({ invite_id: p.invite_id, team_id: p.team_id, user_id: p.user_id, subscription_id: p.subscription_id }),
  },
  // Not the purchase key: it embeds the buyer's Idempotency-Key.
  ti_event_passes_issued: {
    type: 'ti_event.passes_purchased',
    data: (p) => ({ ti_event_id: p.ti_event_id, ticket_id: p.ticket_id, owner_id: p.owner_id, pass_ids: p.pass_ids }),
  },
  // Not the pass authorization token (ADR 0153).
  ti_event_pass_assigned: {
    type: 'ti_event.pass_assigned',
    data: (p) => ({ pass_id: p.pass_id, ti_event_id: p.ti_event_id, ticket_id: p.ticket_id, owner_id: p.owner_id, assign_id: p.assign_id }),
  },
  sponsorship_created: {
    type: 'sponsorship.created',
    data: (p) => ({ sponsorship_id: p.sponsorship_id, sponsor_id: p.sponsor_id, subscription_id: p.pricing_id }),
  },
  sponsor_slot_activated: {
    type: 'sponsorship.slot_activated',
    data: (p) => ({
      slot_id: p.slot_id,
      sponsorship_id: p.sponsorship_id,
      user_id: p.user_id,
      membership_id: p.membership_id,
      subscription_id: p.pricing_id,
    }),
  },
  sponsor_payment_turned_off: {
    type: 'sponsorship.sponsor_payment_turned_off',
    data: (p) => ({ slot_id: p.slot_id, sponsorship_id: p.sponsorship_id, user_id: p.user_id, membership_id: p.membership_id }),
  },
};

/** Every type an endpoint may subscribe to, with the domain event it comes from. */
export const WEBHOOK_TYPES: ReadonlyArray<{ type: string; sourceEvent: EventName }> = (Object.keys(ROUTES) as EventName[]).map((name) => ({
  type: ROUTES[name]!.type,
  sourceEvent: name,
}));

const KNOWN_TYPES = new Set(WEBHOOK_TYPES.map((row) => row.type));
/** The domain events some webhook type comes from: the only ones the ingest reads. */
export const ROUTED_EVENTS: readonly EventName[] = [...new Set(WEBHOOK_TYPES.map((row) => row.sourceEvent))];
export const isWebhookType = (type: string): boolean => KNOWN_TYPES.has(type);

/** The webhook an event becomes, or null when no endpoint can subscribe to its name. */
export function webhookOf(event: DomainEvent): { type: string; data: Record<string, unknown> } | null {
  // The row's name is the event's: its payload has that row's type (catalogue.ts).
  const route = ROUTES[event.name] as WebhookRoute<EventName> | undefined;
  return route ? { type: route.type, data: route.data(event.payload) } : null;
}
