import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import { attachDefaultCommand, grantMembershipCommand } from '../memberships/membership.command.js';
import type { MembershipService } from '../memberships/membership.service.js';
import { toMembership, toMembershipChange } from './catalog.wire.js';

export function membershipsHandlers(memberships: MembershipService): AsyncImplementation<typeof MembershipsServiceService> {
  return {
    listMemberships: async ({ resourceId, userId, includeHistory }) => {
      const list = await memberships.list(resourceId, userId, includeHistory);
      return { items: list.items.map(toMembership), history: list.history.map(toMembershipChange) };
    },
    attachDefaultMembership: async (request) => ({
      attached: await memberships.attachDefault(parseOrThrow(attachDefaultCommand, request)),
    }),
    setMembershipRenewal: async ({ resourceId, userId, membershipId, autorenew }) =>
      toMembership(await memberships.setRenewal({ resourceId, userId, membershipId }, autorenew)),
    detachMembership: async ({ resourceId, userId, membershipId }) =>
      toMembership(await memberships.detach({ resourceId, userId, membershipId })),
    listMembershipHistory: async ({ resourceId, userId, query }) => {
      const page = await memberships.history(resourceId, userId, fromPageQuery(query));
      return { items: page.items.map(toMembershipChange), paginator: page.paginator };
    },
    grantMembership: async (request) => toMembership(await memberships.grant(parseOrThrow(grantMembershipCommand, request))),
  };
}
