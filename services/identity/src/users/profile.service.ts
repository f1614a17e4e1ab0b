import { userNotExist } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { ClientOf } from '@masthead/core/clients';
import type { ListMembershipsResponse } from '@masthead/proto/catalog/memberships';
import type { CommunityServiceService, MemberSummary } from '@masthead/proto/community';
import type { Profile } from '@masthead/proto/identity';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import { toUserMessage } from './user.projection.js';
import type { UserRepository } from './user.repository.js';

interface ProfileDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  memberships: ClientOf<'memberships'>;
  community: ServiceClient<typeof CommunityServiceService>;
}

/** What a member sees of itself in one resource, gathered from its owners in parallel. */
export class ProfileService {
  constructor(private readonly deps: ProfileDeps) {}

  memberships(resourceId: number, userId: number, includeHistory = false): Promise<ListMembershipsResponse> {
    return this.deps.memberships.listMemberships({ resourceId, userId, includeHistory }, { idempotent: true });
  }

  summary(resourceId: number, userId: number): Promise<MemberSummary> {
    return this.deps.community.getMemberSummary({ resourceId, userId }, { idempotent: true });
  }

  async profile(userId: number, resourceId: number): Promise<Profile> {
    const user = await this.deps.users.findById(userId);
    if (!user) throw userNotExist();
    if (!resourceId) return { user: toUserMessage(user) };
    const [relationship, memberships, summary] = await Promise.all([
      this.deps.relationships.find(resourceId, userId),
      this.memberships(resourceId, userId, true),
      this.summary(resourceId, userId),
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
