import { userNotExist } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { CatalogServiceService, ListMembershipsResponse } from '@masthead/proto/catalog';
import type { CommunityServiceService, MemberSummary } from '@masthead/proto/community';
import type { Profile } from '@masthead/proto/identity';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { toUserMessage } from './user.projection.js';
import type { UserRepository } from './user.repository.js';

interface ProfileDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  catalog: ServiceClient<typeof CatalogServiceService>;
  community: ServiceClient<typeof CommunityServiceService>;
}

/** What a member sees of itself in one resource, gathered from its owners in parallel. */
export class ProfileService {
  constructor(private readonly deps: ProfileDeps) {}

  memberships(
    resourceId: number,
    userId: number,
    requestId: string,
    includeHistory = false,
    admin = false,
  ): Promise<ListMembershipsResponse> {
    return this.deps.catalog.listMemberships({ resourceId, userId, includeHistory, admin }, { requestId, idempotent: true });
  }

  summary(resourceId: number, userId: number, requestId: string): Promise<MemberSummary> {
    return this.deps.community.getMemberSummary({ resourceId, userId }, { requestId, idempotent: true });
  }

  async profile(userId: number, resourceId: number, requestId: string, admin = false): Promise<Profile> {
    const user = await this.deps.users.findById(userId);
    if (!user) throw userNotExist();
    if (!resourceId) return { user: toUserMessage(user) };
    const [relationship, memberships, summary] = await Promise.all([
      this.deps.relationships.find(resourceId, userId),
      this.memberships(resourceId, userId, requestId, true, admin),
      this.summary(resourceId, userId, requestId),
    ]);
    return {
      user: toUserMessage(user, relationship?.extra ?? {}),
      resourceView: {
        subscriptions: memberships.items,
        teams: summary.teams,
        subscriptionsHistory: memberships.history,
        assignedTickets: summary.assignedTickets,
      },
    };
  }
}
