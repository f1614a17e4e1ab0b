import type { AsyncImplementation } from '@masthead/core/grpc';
import type { MemberAccessChange, MemberAccessServiceService } from '@masthead/proto/identity/access';
import type { MemberAccessOutcome, MemberAccessService } from '../access/member-access.service.js';
import { RELATIONSHIP_STATES } from '../relationships/relationship-status.js';

const toChange = (outcome: MemberAccessOutcome): MemberAccessChange => ({
  userId: outcome.userId,
  resourceId: outcome.resourceId,
  previousStatus: RELATIONSHIP_STATES[outcome.previousStatus],
  status: RELATIONSHIP_STATES[outcome.status],
  revokedSessionIds: outcome.revokedSessionIds,
});

/** gRPC MemberAccessService (proto/defs/masthead/identity/v1/access.proto). */
export function memberAccessHandlers(access: MemberAccessService): AsyncImplementation<typeof MemberAccessServiceService> {
  return {
    suspendMember: async ({ userId, resourceId }, { requestId }) => toChange(await access.suspend(userId, resourceId, requestId)),
    removeMemberProfile: async ({ userId, resourceId }, { requestId }) =>
      toChange(await access.removeProfile(userId, resourceId, requestId)),
    restoreMemberAccess: async ({ resourceId, userId, email }, { requestId }) =>
      toChange(await access.restore(resourceId, { userId, email }, requestId)),
  };
}
