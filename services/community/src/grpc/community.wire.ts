import type { Team, TeamInfo } from '@masthead/proto/community';
import type { TeamMembershipView } from '../members/member-summary.service.js';
import type { PassRecord } from '../passes/pass.schema.js';
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
