import type { ClientOf } from '@masthead/core/clients';
import type { Caller } from '@masthead/proto/community/teams';
import { noTeamPermission, teamNotFound } from './team.errors.js';
import type { TeamMemberRepository } from './team-member.repository.js';
import type { TeamRecord } from './team.schema.js';
import type { TeamRepository } from './team.repository.js';

/**
 * The selected-team management guard (document 2 C; docs/adr/0131). The spec passes either
 * can-own-teams eligibility in the selected resource or an active owner/admin relationship. The
 * eligibility branch alone would let any team owner of resource A manage every team of B
 * (teams have no resource), so here it counts only for the team's own owner.
 */
export interface TeamAccessDeps {
  teams: TeamRepository;
  members: TeamMemberRepository;
  memberViews: ClientOf<'memberViews'>;
}

export class TeamAccess {
  constructor(private readonly deps: TeamAccessDeps) {}

  /** Can-own-teams eligibility: a membership of a team plan in the resource, any status. */
  async canOwnTeams(caller: Caller): Promise<boolean> {
    const { eligible } = await this.deps.memberViews.canOwnTeams(
      { resourceId: caller.resourceId, userId: caller.userId },
      { idempotent: true },
    );
    return eligible;
  }

  /** The team by ID, whatever the resource (teams have none): 404 team_not_found. */
  async team(teamId: number): Promise<TeamRecord> {
    const team = teamId > 0 ? await this.deps.teams.findById(teamId) : null;
    if (!team) throw teamNotFound();
    return team;
  }

  /** The team, when the caller may manage it; 404 team_not_found, then 401 incorrect_data. */
  async manageable(caller: Caller, teamId: number): Promise<TeamRecord> {
    const team = await this.team(teamId);
    await this.guard(caller, team);
    return team;
  }

  /** The management guard on a team already found: 401 incorrect_data when it does not pass. */
  async guard(caller: Caller, team: TeamRecord): Promise<void> {
    const relationship = await this.deps.members.find(team._id, caller.userId);
    if (relationship?.status === 'active' && (relationship.role === 'owner' || relationship.role === 'admin')) return;
    if (team.owner_id === caller.userId && (await this.canOwnTeams(caller))) return;
    throw noTeamPermission();
  }
}
