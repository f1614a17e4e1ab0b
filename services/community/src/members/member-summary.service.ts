import type { PassRepository } from '../passes/pass.repository.js';
import type { PassRecord } from '../passes/pass.schema.js';
import type { TeamMemberRepository } from '../teams/team-member.repository.js';
import type { TeamMemberRecord } from '../teams/team-member.schema.js';
import type { TeamRepository } from '../teams/team.repository.js';
import type { TeamRecord } from '../teams/team.schema.js';

interface MemberSummaryDeps {
  teams: TeamRepository;
  teamMembers: TeamMemberRepository;
  passes: PassRepository;
}

/** A team as one user sees it: the team with that user's relationship (role, status). */
export interface TeamMembershipView {
  team: TeamRecord;
  relationship: TeamMemberRecord;
}

export interface MemberSummaryView {
  teams: TeamMembershipView[];
  assignedPasses: PassRecord[];
}

/** What a member's profile shows from this service: current teams and assigned passes. */
export class MemberSummaryService {
  constructor(private readonly deps: MemberSummaryDeps) {}

  async summary(resourceId: number, userId: number): Promise<MemberSummaryView> {
    const [relationships, assignedPasses] = await Promise.all([
      this.deps.teamMembers.listCurrentForUser(userId),
      this.deps.passes.listAssignedTo(resourceId, userId),
    ]);
    // One read per distinct team (by `_id`, indexed on FerretDB too), never one per relationship.
    const teams = await this.deps.teams.findByIds([...new Set(relationships.map((row) => row.team_id))]);
    const teamById = new Map(teams.map((team) => [team._id, team]));
    const views = relationships.flatMap((relationship) => {
      const team = teamById.get(relationship.team_id);
      // A relationship whose team row is gone is left out rather than shown half-empty.
      return team ? [{ team, relationship }] : [];
    });
    return { teams: views, assignedPasses };
  }
}
