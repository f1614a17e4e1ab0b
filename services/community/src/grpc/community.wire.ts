import type { Team, TeamInfo } from '@masthead/proto/community';
import type { Invitation, ManagedTeam, TeamMember, TeamOverview } from '@masthead/proto/community/teams';
import type { InviteRecord } from '../invitations/invite.schema.js';
import type { TeamMembershipView } from '../members/member-summary.service.js';
import type { PassRecord } from '../passes/pass.schema.js';
import type { TeamMemberRecord } from '../teams/team-member.schema.js';
import type { TeamView } from '../teams/team.service.js';
import type { TeamRecord } from '../teams/team.schema.js';

/** Storage rows → CommunityService messages. The gateway shapes the JSON from these. */

export const toTeam = ({ team, relationship }: TeamMembershipView): Team => ({
  id: team._id,
  name: team.name,
  role: relationship.role,
  status: relationship.status,
});

/** The pass projection of the profile: {id, ti_event_id, ticket_id, owner_id, assign_id, extra}. */
export const toAssignedTicket = (pass: PassRecord): Record<string, unknown> => ({
  id: pass._id,
  ti_event_id: pass.ti_event_id,
  ticket_id: pass.ticket_id,
  owner_id: pass.owner_id,
  assign_id: pass.assign_id,
  extra: pass.extra ?? {},
});

export const toTeamInfo = (team: TeamRecord): TeamInfo => ({ id: team._id, name: team.name, ownerId: team.owner_id, active: team.active });

const iso = (date: Date) => new Date(date).toISOString();
const isoOrUndefined = (date: Date | null | undefined) => (date ? iso(date) : undefined);
const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const toManagedTeam = (team: TeamRecord): ManagedTeam => ({
  id: team._id,
  name: team.name,
  description: orUndefined(team.description),
  ownerId: team.owner_id,
  active: team.active,
  memberLimit: team.member_limit,
  allowedDomains: team.allowed_domains ?? [],
  createdAt: iso(team.created_at),
  updatedAt: iso(team.updated_at ?? team.created_at),
});

export const toTeamMember = (row: TeamMemberRecord): TeamMember => ({
  id: row._id,
  teamId: row.team_id,
  userId: row.user_id,
  role: row.role,
  status: row.status,
  pricingId: orUndefined(row.pricing_id),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at ?? row.created_at),
});

export const toInvitation = (invite: InviteRecord): Invitation => ({
  id: invite._id,
  email: orUndefined(invite.email),
  userName: orUndefined(invite.user_name),
  title: invite.title,
  description: invite.description,
  code: invite.code,
  activationsLimit: invite.activations_limit,
  teamId: orUndefined(invite.team_id),
  pricingId: orUndefined(invite.pricing_id),
  startDate: isoOrUndefined(invite.start_date),
  endDate: isoOrUndefined(invite.end_date),
  createdAt: iso(invite.created_at),
});

/**
 * What a team's list item counts (docs/adr/0130): relationships that are not removed, every
 * invite, and the distinct Pricing IDs its relationships and invites hold.
 */
export const toTeamOverview = ({ team, members, invites }: TeamView): TeamOverview => ({
  team: toManagedTeam(team),
  usersCount: members.filter((row) => row.status !== 'removed').length,
  invites: invites.map(toInvitation),
  pricingIds: [...new Set([...members, ...invites].map((row) => row.pricing_id).filter((id): id is number => typeof id === 'number'))],
});
