import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { Caller, TeamsServiceService } from '@masthead/proto/community/teams';
import type { TeamService } from '../teams/team.service.js';
import { toManagedTeam, toTeamMember, toTeamOverview } from './community.wire.js';

/** The caller message is required; a missing one is the gateway's bug, read as nobody. */
export const callerOf = (caller: Caller | undefined): Caller => caller ?? { resourceId: 0, userId: 0, email: '', role: '' };

export function teamsHandlers(teams: TeamService): AsyncImplementation<typeof TeamsServiceService> {
  return {
    listTeams: async ({ caller, query }) => {
      const page = await teams.list(callerOf(caller), fromPageQuery(query));
      return { items: page.rows.map(toTeamOverview), paginator: page.paginator };
    },
    createTeam: async ({ caller, ...fields }) => toManagedTeam(await teams.create(callerOf(caller), fields)),
    getTeamDetail: async ({ caller, teamId }) => toTeamOverview(await teams.detail(callerOf(caller), teamId)),
    updateTeam: async ({ caller, teamId, ...fields }) => toManagedTeam(await teams.update(callerOf(caller), teamId, fields)),
    deleteTeam: async ({ caller, teamId }) => {
      await teams.delete(callerOf(caller), teamId);
      return { result: true };
    },
    listTeamMembers: async ({ caller, teamId, query }) => {
      const page = await teams.listMembers(callerOf(caller), teamId, fromPageQuery(query));
      return { items: page.rows.map(toTeamMember), paginator: page.paginator };
    },
    getTeamMember: async ({ caller, teamId, userId }) => toTeamMember(await teams.member(callerOf(caller), teamId, userId)),
    updateTeamMember: async ({ caller, teamId, userId, ...fields }) =>
      toTeamMember(await teams.updateMember(callerOf(caller), teamId, userId, fields)),
    removeTeamMember: async ({ caller, teamId, userId }) =>
      toTeamMember(await teams.setStatus(callerOf(caller), teamId, userId, 'removed')),
    suspendTeamMember: async ({ caller, teamId, userId }) =>
      toTeamMember(await teams.setStatus(callerOf(caller), teamId, userId, 'suspended')),
  };
}
