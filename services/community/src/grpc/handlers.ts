import { teamNotFound } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CommunityServiceService } from '@masthead/proto/community';
import type { MemberSummaryService } from '../members/member-summary.service.js';
import type { TeamRepository } from '../teams/team.repository.js';
import { toAssignedTicket, toTeam, toTeamInfo } from './community.wire.js';

interface Deps {
  memberSummary: MemberSummaryService;
  teams: TeamRepository;
}

export function communityHandlers({ memberSummary, teams }: Deps): AsyncImplementation<typeof CommunityServiceService> {
  return {
    getMemberSummary: async ({ resourceId, userId }) => {
      const summary = await memberSummary.summary(resourceId, userId);
      return { teams: summary.teams.map(toTeam), assignedTickets: summary.assignedPasses.map(toAssignedTicket) };
    },
    getTeam: async ({ teamId }) => {
      const team = teamId > 0 ? await teams.findById(teamId) : null;
      if (!team) throw teamNotFound();
      return toTeamInfo(team);
    },
  };
}
