import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { MemberViewsServiceService } from '@masthead/proto/catalog/member_views';
import type { ResourceMembershipsReader } from '../member-views/resource-memberships.reader.js';
import type { TeamPlansReader } from '../member-views/team-plans.reader.js';
import type { UserPlansReader } from '../member-views/user-plans.reader.js';
import { toPlan, toResourceMemberships, toUserPlan } from './catalog.wire.js';

interface Deps {
  userPlans: UserPlansReader;
  teamPlans: TeamPlansReader;
  resourceMemberships: ResourceMembershipsReader;
}

export function memberViewsHandlers({
  userPlans,
  teamPlans,
  resourceMemberships,
}: Deps): AsyncImplementation<typeof MemberViewsServiceService> {
  return {
    listUserPlans: async ({ resourceId, userId, query }) => {
      const page = await userPlans.list(resourceId, userId, fromPageQuery(query));
      return { items: page.items.map(toUserPlan), paginator: page.paginator };
    },
    listTeamPlans: async ({ resourceId, userId, teamId, query }, call) => {
      const page = await teamPlans.list(resourceId, userId, teamId, fromPageQuery(query), call);
      return { items: page.items.map(toPlan), paginator: page.paginator };
    },
    canOwnTeams: async ({ resourceId, userId }) => ({ eligible: await teamPlans.canOwnTeams(resourceId, userId) }),
    listResourceMemberships: async ({ userId, partnerId, query }, call) => {
      const page = await resourceMemberships.list(userId, partnerId, fromPageQuery(query), call);
      return { items: page.items.map(toResourceMemberships), paginator: page.paginator };
    },
  };
}
