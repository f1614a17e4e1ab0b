/**
 * Every domain event, by name, with the payload it carries (ADR 0009 lists who publishes each and
 * when; ADR 0111 why they are typed here). `publish` checks a payload against its name and
 * `onEvent` hands a subscriber the payload of the name it listens to, so a field renamed on one
 * side fails to compile on the other. Payloads carry IDs and labels, never passwords or tokens
 * (the recovery mails' codes are the documented exception, ADR 0056).
 */

/** A session started (sign-in, registration, social, provider exchange, reset, external login). */
type SessionStarted = {
  user_id: number;
  session_id: number;
  source_type: string | null;
  guest_session: string | null;
  ip: string | null;
  user_agent: string | null;
};

/** A relationship moved to another state (ADR 0072); `details` of the change are spread in. */
type AccessMoved = {
  user_id: number;
  request_id: string;
  revoked_session_ids?: number[];
  [detail: string]: unknown;
};

/** A code for the mail sender (ADR 0056). */
type CodeMailed = { user_id: number; email: string; code: string; expires_at: string };

type ExtraDataField = { extra_data_id: number; user_id: number; group_key: string; field_key: string };

type SponsorshipChanged = { sponsorship_id: number; sponsor_id: number };

type MembershipChanged = { membership_id: number; user_id: number; pricing_id: number; plan_id: number };

type TransactionSettled = {
  transaction_id: number;
  user_id: number;
  kind: string;
  amount: number;
  currency: string;
  status: string;
  error: string | null;
};

type TransactionChanged = {
  transaction_id: number;
  user_id: number;
  status: string;
  amount_refunded: number;
  dispute_status: string | null;
};

export type DomainEvents = {
  // identity
  user_login: SessionStarted;
  user_signup: SessionStarted;
  user_profile_updated: { user_id: number; fields: string[] };
  user_marketing_opt_ins_changed: { user_id: number; opt_ins: unknown };
  user_password_changed: { user_id: number; initial: boolean; revoked_sessions: number };
  user_extra_data_updated: ExtraDataField & { field_value: unknown; created: boolean };
  user_extra_data_deleted: ExtraDataField;
  email_confirmation_requested: CodeMailed;
  password_reset_requested: CodeMailed;
  email_change_requested: CodeMailed;
  member_suspended: AccessMoved;
  member_profile_removed: AccessMoved;
  member_access_locked: AccessMoved;
  member_access_restored: AccessMoved;
  member_sessions_revoked: { user_id: number; reason: string; session_ids: number[]; request_id: string };
  member_access_changed: { user_id: number; session_id: number | null; reason: string };
  // accounts
  resource_updated: { public_key: string };
  service_account_updated: { service_account_id: number; status: string; revoked: boolean };
  account_request: { account_request_id: number; email: string; plan: string; resource_id: number };
  // catalog
  catalog_updated: Record<string, never>;
  membership_created: MembershipChanged & { source: string };
  membership_renewal_changed: MembershipChanged & { autorenew: boolean };
  membership_detached: MembershipChanged;
  /** Billing's changes (docs/adr/0145, 0146): a paid period, an end, new terms. */
  membership_renewed: MembershipChanged & { end_date: string };
  membership_ended: MembershipChanged & { reason: string };
  membership_changed: MembershipChanged & { end_date: string | null; autorenew: boolean };
  // billing
  user_add_payment_method: {
    user_id: number;
    payment_method_id: number;
    provider_payment_method_id: string;
    customer_id: string;
    pay_system: string;
    mode: string;
  };
  /** A transaction settled (docs/adr/0141): checkout, renewal or external purchase. */
  transaction_succeeded: TransactionSettled;
  transaction_failed: TransactionSettled;
  /** Provider webhooks (docs/adr/0147): a refund that completed the amount, a dispute's new status. */
  transaction_refunded: TransactionChanged;
  transaction_disputed: TransactionChanged;
  /** Renewals of paid memberships (docs/adr/0145): each step of a period's renewal. */
  renewal_succeeded: { membership_id: number; user_id: number; transaction_id: number; period_end: string | null };
  renewal_failed: {
    membership_id: number;
    user_id: number;
    transaction_id: number;
    attempt: number;
    /** Null when it was the last attempt: the membership lapses. */
    next_attempt_at: string | null;
    error: string | null;
  };
  membership_lapsed: { membership_id: number; user_id: number; reason: string };
  // community
  team_owner_create_team: { team_id: number; owner_id: number; name: string };
  individual_in_team_invite: { invite_id: number; team_id: number | null; email: string | null; code: string | null; inviter_id: number };
  invite_activated: { invite_id: number; team_id: number | null; user_id: number; subscription_id: number | null };
  /** A ticket reservation was confirmed into passes owned by the buyer (ADR 0151). */
  ti_event_passes_issued: { purchase_key: string; ti_event_id: number; ticket_id: number; owner_id: number; pass_ids: number[] };
  /** A purchase line's passes were taken back: it was refunded or its dispute lost (ADR 0234). */
  ti_event_passes_revoked: {
    purchase_key: string;
    ti_event_id: number;
    ticket_id: number;
    owner_id: number;
    pass_ids: number[];
    reason: string;
  };
  /**
   * A pass got its attendee. Carries the pass authorization token for the mail sender, like the
   * codes of ADR 0056 (ADR 0153); `email` is the invitation's, null for a direct assignment.
   */
  ti_event_pass_assigned: {
    pass_id: number;
    ti_event_id: number;
    ticket_id: number;
    owner_id: number;
    assign_id: number;
    email: string | null;
    authorization_token: string;
    expires_at: string;
  };
  /** An owner invited an attendee by email; the code is for the mail sender (ADR 0152). */
  ti_event_pass_invite: { pass_id: number; ti_event_id: number; owner_id: number; email: string; code: string };
  /** A pending invitation was withdrawn or an attendee's assignment ended (ADR 0152). */
  ti_event_pass_unassigned: { pass_id: number; owner_id: number; assign_id: number | null; email: string | null; kind: string };
  ti_event_pass_extra_updated: { pass_id: number; owner_id: number; fields: string[] };
  /** Billing bought a gift or sponsorship: the sponsorship exists with its slots (ADR 0156). */
  sponsorship_created: { sponsorship_id: number; sponsor_id: number; pricing_id: number; purchase_key: string };
  /** The four steps of PUT /sponsor/sponsored-subscriptions/{id}, one event each (document 2 E; ADR 0154). */
  sponsor_subscription_text_updated: SponsorshipChanged & { title: string; description: string };
  sponsor_subscription_payer_changed: SponsorshipChanged & { is_paying_by_sponsor: boolean };
  sponsor_subscription_autorenew_changed: SponsorshipChanged & { membership_id: number; autorenew: boolean };
  sponsor_subscription_next_subscription_changed: SponsorshipChanged & { membership_id: number; is_allowed_next_subscription: boolean };
  /** A sponsor invited a slot recipient; the code is for the mail sender (ADR 0155). */
  sponsor_slot_invitation: { slot_id: number; sponsorship_id: number; sponsor_id: number; recipient_email: string; code: string };
  sponsor_slot_cleared: { slot_id: number; sponsorship_id: number; sponsor_id: number; user_ids: number[]; membership_ids: number[] };
  sponsor_slot_activated: { slot_id: number; sponsorship_id: number; user_id: number; membership_id: number; pricing_id: number };
  sponsor_payment_turned_off: { slot_id: number; sponsorship_id: number; user_id: number; membership_id: number | null };
  // integrations: email-list and CRM providers (docs/adr/0163)
  /** PUT /integrations/crm/user/tags: the map the member sent, and the spec's empty changes list. */
  user_update_crm_tags: { user_id: number; tags: Record<string, unknown>; changes: [] };
  /** A member write at the `audience` provider that it accepted; `status` is the member's status there. */
  audience_member_changed: {
    user_id: number;
    action: 'subscribe' | 'subscriber_info' | 'unsubscribe' | 'add_tags';
    status: string | null;
    tags: string[];
  };
  /** POST /integrations/listmgr/subscribe or unsubscribe: each list asked for, with its state after the reread. */
  listmgr_subscriptions_changed: {
    user_id: number;
    action: 'subscribe' | 'unsubscribe';
    lists: Array<{ list_id: string; state: string; error: string | null }>;
  };
  // integrations: embedded clients (docs/adr/0172)
  /** POST /user/event (document 2 L, docs/adr/0172): a public event with who and where; `occurred_at` is its timestamp. */
  user_event: {
    name: string;
    value: string;
    data: Record<string, unknown>;
    content_key: string | null;
    custom_recipient_email: string | null;
    user_id: number | null;
    session_id: number | null;
    guest_session: string | null;
    ip: string | null;
    user_agent: string | null;
    referrer: string | null;
    host: string | null;
    language: string | null;
    language_id: number | null;
  };
  /** An operator changed the public event names: processes drop their cached list. */
  event_names_updated: { name: string };
  /** Teams or assigned passes of these members changed: their cached profiles go (ADR 0191). */
  member_summary_changed: { user_ids: number[] };
};

export type EventName = keyof DomainEvents;
