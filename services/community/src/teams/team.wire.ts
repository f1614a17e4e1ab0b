import type { InviteRecord } from '../invitations/invite.schema.js';
import type { TeamMemberRecord } from './team-member.schema.js';
import type { TeamRecord } from './team.schema.js';

/** The JSON records of section C, shaped once here (storage → spec field names). */

const iso = (date: Date | null | undefined) => (date ? new Date(date).toISOString() : null);

export const teamRecord = (team: TeamRecord) => ({
  id: team._id,
  name: team.name,
  description: team.description ?? null,
  owner_id: team.owner_id,
  active: team.active,
  member_limit: team.member_limit,
  allowed_domains: team.allowed_domains ?? [],
  created_at: iso(team.created_at),
  updated_at: iso(team.updated_at ?? team.created_at),
});

export const inviteRecord = (invite: InviteRecord) => ({
  id: invite._id,
  email: invite.email,
  user_name: invite.user_name,
  title: invite.title,
  description: invite.description,
  code: invite.code,
  activations_limit: invite.activations_limit,
  team_id: invite.team_id,
  subscription_id: invite.pricing_id,
  start_date: iso(invite.start_date),
  end_date: iso(invite.end_date),
  created_at: iso(invite.created_at),
});

export const memberRecord = (row: TeamMemberRecord) => ({
  id: row._id,
  team_id: row.team_id,
  user_id: row.user_id,
  role: row.role,
  status: row.status,
  subscription_id: row.pricing_id ?? null,
  created_at: iso(row.created_at),
  updated_at: iso(row.updated_at ?? row.created_at),
});

/**
 * The team list item (document 2: id, name, users_count, invites_count, invites, subscription):
 * users_count counts relationships that are not removed; `subscription` lists the distinct
 * Pricing IDs the team's relationships and invites hold (docs/adr/0130).
 */
export const teamListItem = (team: TeamRecord, members: TeamMemberRecord[], invites: InviteRecord[]) => ({
  ...teamRecord(team),
  users_count: members.filter((row) => row.status !== 'removed').length,
  invites_count: invites.length,
  invites: invites.map(inviteRecord),
  subscription: [...new Set([...members, ...invites].map((row) => row.pricing_id).filter((id): id is number => typeof id === 'number'))],
});
