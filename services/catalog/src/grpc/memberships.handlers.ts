import { parseOrThrow } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import {
  attachDefaultCommand,
  changeTermsCommand,
  endMembershipCommand,
  grantMembershipCommand,
  renewMembershipCommand,
} from '../memberships/membership.command.js';
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
    getMembership: async ({ resourceId, userId, membershipId }) =>
      toMembership(await memberships.get({ resourceId, userId, membershipId })),
    renewMembership: async (request) => {
      const { fromEndDate, ...target } = parseOrThrow(renewMembershipCommand, request);
      return toMembership(await memberships.renew(target, fromEndDate));
    },
    endMembership: async (request) => {
      const { reason, ...target } = parseOrThrow(endMembershipCommand, request);
      return toMembership(await memberships.end(target, reason));
    },
    changeMembershipTerms: async (request) => {
      const { endDate, autorenew, ...target } = parseOrThrow(changeTermsCommand, request);
      return toMembership(await memberships.changeTerms(target, { endDate, autorenew }));
    },
  };
}
