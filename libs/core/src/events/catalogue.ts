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

type MembershipChanged = { membership_id: number; user_id: number; pricing_id: number; plan_id: number };

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
  // billing
  user_add_payment_method: {
    user_id: number;
    payment_method_id: number;
    provider_payment_method_id: string;
    customer_id: string;
    pay_system: string;
    mode: string;
  };
  // community
  team_owner_create_team: { team_id: number; owner_id: number; name: string };
  individual_in_team_invite: { invite_id: number; team_id: number | null; email: string | null; code: string | null; inviter_id: number };
  invite_activated: { invite_id: number; team_id: number | null; user_id: number; subscription_id: number | null };
  /** Teams or assigned passes of these members changed: their cached profiles go (ADR 0191). */
  member_summary_changed: { user_ids: number[] };
};

export type EventName = keyof DomainEvents;
