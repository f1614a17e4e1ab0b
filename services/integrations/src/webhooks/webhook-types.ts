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

/**
 * Domain events → webhook types (docs/adr/0173). One row per event a publisher may subscribe
 * to; a new event of the catalogue (membership renewal and expiry, payments) becomes a webhook by
 * adding its row here. `subscription_id` is a Pricing ID, as the public API names it.
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
  team_owner_create_team: { type: 'team.created', data: (p) => ({ team_id: p.team_id, owner_id: p.owner_id, name: p.name }) },
  individual_in_team_invite: {
    type: 'invitation.created',
    data: (p) => ({ invite_id: p.invite_id, team_id: p.team_id, email: p.email, inviter_id: p.inviter_id }),
  },
  invite_activated: {
    type: 'invitation.activated',
    data: (p) => ({ invite_id: p.invite_id, team_id: p.team_id, user_id: p.user_id, subscription_id: p.subscription_id }),
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
