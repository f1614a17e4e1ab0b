import type { AsyncImplementation } from '@masthead/core/grpc';
import type { CommunityServiceService } from '@masthead/proto/community';
import type { MemberSummaryService } from '../members/member-summary.service.js';
import { toAssignedTicket, toTeam } from './community.wire.js';

interface Deps {
  memberSummary: MemberSummaryService;
}

export function communityHandlers({ memberSummary }: Deps): AsyncImplementation<typeof CommunityServiceService> {
  return {
    getMemberSummary: async ({ resourceId, userId }) => {
      const summary = await memberSummary.summary(resourceId, userId);
      return { teams: summary.teams.map(toTeam), assignedTickets: summary.assignedPasses.map(toAssignedTicket) };
    },
  };
}
