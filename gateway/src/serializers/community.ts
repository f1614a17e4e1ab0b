import type { Pricing } from '@masthead/proto/catalog';
import type { Team, TeamInfo } from '@masthead/proto/community';
import { serializePricing } from './catalog.js';

export const serializeTeam = (team: Team): Record<string, unknown> => ({
  id: team.id,
  name: team.name,
  role: team.role,
  status: team.status,
});

type Json = Record<string, unknown>;

/** The public invite projection of POST /invite-validation (document 2, Invite record). */
export const serializePublicInvite = (invite: Json): Json => ({
  title: invite['title'] ?? null,
  description: invite['description'] ?? null,
  code: invite['code'] ?? null,
  start_date: invite['start_date'] ?? null,
  end_date: invite['end_date'] ?? null,
});

/** `data` of POST /invite-validation with `return_invite`: the stored record and `is_user_exist`. */
export const serializeInviteData = (invite: Json, isUserExist: boolean): Json => ({
  id: invite['id'],
  email: invite['email'] ?? null,
  user_name: invite['user_name'] ?? null,
  title: invite['title'] ?? null,
  description: invite['description'] ?? null,
  code: invite['code'],
  activations_limit: invite['activations_limit'],
  team_id: invite['team_id'] ?? null,
  subscription_id: invite['subscription_id'] ?? null,
  start_date: invite['start_date'] ?? null,
  end_date: invite['end_date'] ?? null,
  is_user_exist: isUserExist,
});

export interface InvitePreviewView {
  email: string | null;
  invite: Json;
  pricing: Pricing | null;
  team: TeamInfo | null;
}

/**
 * POST /invite-validation's result (document 2 D): a team invite shows its Pricing under `team`,
 * any other under `subscription`; no invite carries a ticket yet (passes are not built).
 */
export const serializeInvitePreview = ({ email, invite, pricing, team }: InvitePreviewView): Json => {
  const subscription = pricing && serializePricing(pricing, false);
  return {
    result: true,
    email,
    invite: serializePublicInvite(invite),
    subscription: team ? null : subscription,
    ticket: null,
    team: team && { id: team.id, name: team.name, subscription },
  };
};

/** POST /invite-activation: `subscription_id` only for a non-team invite with a Pricing, else null. */
export const serializeActivation = (subscriptionId: number | undefined): Json => ({
  result: true,
  subscription_id: subscriptionId ?? null,
});
