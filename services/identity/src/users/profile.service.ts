import { userNotExist } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { ClientOf } from '@masthead/core/clients';
import type { ListMembershipsResponse } from '@masthead/proto/catalog/memberships';
import type { CommunityServiceService, MemberSummary } from '@masthead/proto/community';
import type { Profile } from '@masthead/proto/identity';
import { readMember } from '../credentials/member-read.js';
import type { RelationshipRepository } from '../relationships/relationship.repository.js';
import type { ProfileCache } from './profile-cache.js';
import { toUserMessage } from './user.projection.js';
import type { UserRepository } from './user.repository.js';

interface ProfileDeps {
  users: UserRepository;
  relationships: RelationshipRepository;
  memberships: ClientOf<'memberships'>;
  community: ServiceClient<typeof CommunityServiceService>;
  cache: ProfileCache;
}

/** What a member holds in one resource from other services: memberships (with history) and its summary. */
export interface ResourceView {
  memberships: ListMembershipsResponse;
  summary: MemberSummary;
}

/**
 * What a member sees of itself in one resource, gathered from its owners in parallel and kept in
 * the profile cache (ADR 0191): a warm GET /user or sign-in asks no other service and no database
 * for it.
 */
export class ProfileService {
  constructor(private readonly deps: ProfileDeps) {}

  /** Memberships and member summary in the resource; sign-in and the profile share the entry. */
  resourceView(resourceId: number, userId: number): Promise<ResourceView> {
    return this.deps.cache.read(userId, resourceId, 'view', async () => {
      const [memberships, summary] = await Promise.all([
        this.deps.memberships.listMemberships({ resourceId, userId, includeHistory: true }, { idempotent: true }),
        this.deps.community.getMemberSummary({ resourceId, userId }, { idempotent: true }),
      ]);
      return { memberships, summary };
    });
  }

  profile(userId: number, resourceId: number): Promise<Profile> {
    return this.deps.cache.read(userId, resourceId, 'profile', () => this.load(userId, resourceId));
  }

  private async load(userId: number, resourceId: number): Promise<Profile> {
    const [{ user, relationship }, view] = await Promise.all([
      readMember(this.deps, userId, resourceId, { recent: true }),
      resourceId ? this.resourceView(resourceId, userId) : null,
    ]);
    if (!user) throw userNotExist();
    if (!view) return { user: toUserMessage(user) };
    const { memberships, summary } = view;
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
