import type { Pricing } from '@masthead/proto/catalog';
import type { Team, TeamInfo } from '@masthead/proto/community';
import type { Invitation, ManagedTeam, TeamMember, TeamOverview } from '@masthead/proto/community/teams';
import { serializePricing } from './catalog.js';

export const serializeTeam = (team: Team): Record<string, unknown> => ({
  id: team.id,
  name: team.name,
  role: team.role,
  status: team.status,
});

type Json = Record<string, unknown>;

/** The invite record (document 2, Invite record; the team invite result). */
export const serializeInvitation = (invite: Invitation): Json => ({
  id: invite.id,
  email: invite.email ?? null,
  user_name: invite.userName ?? null,
  title: invite.title,
  description: invite.description,
  code: invite.code,
  activations_limit: invite.activationsLimit,
  team_id: invite.teamId ?? null,
  subscription_id: invite.pricingId ?? null,
  start_date: invite.startDate ?? null,
  end_date: invite.endDate ?? null,
  created_at: invite.createdAt,
});

/** The public invite projection of POST /invite-validation (document 2, Invite record). */
export const serializePublicInvite = (invite: Invitation): Json => ({
  title: invite.title,
  description: invite.description,
  code: invite.code,
  start_date: invite.startDate ?? null,
  end_date: invite.endDate ?? null,
});

/** `data` of POST /invite-validation with `return_invite`: the stored record and `is_user_exist`. */
export const serializeInviteData = (invite: Invitation, isUserExist: boolean): Json => {
  const record = serializeInvitation(invite);
  delete record['created_at'];
  return { ...record, is_user_exist: isUserExist };
};

/** A team record of section C (POST /user/teams, PUT /user/teams/{team_id}). */
export const serializeManagedTeam = (team: ManagedTeam): Json => ({
  id: team.id,
  name: team.name,
  description: team.description ?? null,
  owner_id: team.ownerId,
  active: team.active,
  member_limit: team.memberLimit,
  allowed_domains: team.allowedDomains,
  created_at: team.createdAt,
  updated_at: team.updatedAt,
});

/**
 * The team list item (document 2: id, name, users_count, invites_count, invites, subscription)
 * over the team record; `subscription` lists the Pricing IDs the team holds (docs/adr/0130).
 */
export const serializeTeamOverview = (overview: TeamOverview): Json => ({
  ...(overview.team ? serializeManagedTeam(overview.team) : {}),
  users_count: overview.usersCount,
  invites_count: overview.invites.length,
  invites: overview.invites.map(serializeInvitation),
  subscription: overview.pricingIds,
});

/** A relationship with a team (the member routes of section C). */
export const serializeTeamMember = (member: TeamMember): Json => ({
  id: member.id,
  team_id: member.teamId,
  user_id: member.userId,
  role: member.role,
  status: member.status,
  subscription_id: member.pricingId ?? null,
  created_at: member.createdAt,
  updated_at: member.updatedAt,
});

export interface InvitePreviewView {
  email: string | null;
  invite: Invitation;
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
