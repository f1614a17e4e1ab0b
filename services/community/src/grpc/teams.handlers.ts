import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery, toWirePaginator } from '@masthead/core/pagination';
import type { Caller, TeamsServiceService } from '@masthead/proto/community/teams';
import type { TeamService } from '../teams/team.service.js';

/** The caller message is required; a missing one is the gateway's bug, read as nobody. */
export const callerOf = (caller: Caller | undefined): Caller => caller ?? { resourceId: 0, userId: 0, email: '', globalRole: '' };

export function teamsHandlers(teams: TeamService): AsyncImplementation<typeof TeamsServiceService> {
  return {
    listTeams: async ({ caller, query }) => {
      const page = await teams.list(callerOf(caller), fromPageQuery(query));
      return { items: page.items, paginator: toWirePaginator(page.paginator) };
    },
    createTeam: ({ caller, fields, autoAllowedDomains }) => teams.create(callerOf(caller), fields ?? {}, autoAllowedDomains),
    getTeamDetail: ({ caller, teamId }) => teams.detail(callerOf(caller), teamId),
    updateTeam: ({ caller, teamId, fields }) => teams.update(callerOf(caller), teamId, fields ?? {}),
    deleteTeam: async ({ caller, teamId }) => {
      await teams.delete(callerOf(caller), teamId);
      return { result: true };
    },
    listTeamMembers: async ({ caller, teamId, query }) => {
      const page = await teams.listMembers(callerOf(caller), teamId, fromPageQuery(query));
      return { items: page.items, paginator: toWirePaginator(page.paginator) };
    },
    getTeamMember: ({ caller, teamId, userId }) => teams.member(callerOf(caller), teamId, userId),
    updateTeamMember: ({ caller, teamId, userId, fields }) => teams.updateMember(callerOf(caller), teamId, userId, fields ?? {}),
    removeTeamMember: ({ caller, teamId, userId }) => teams.setStatus(callerOf(caller), teamId, userId, 'removed'),
    suspendTeamMember: ({ caller, teamId, userId }) => teams.setStatus(callerOf(caller), teamId, userId, 'suspended'),
  };
}
