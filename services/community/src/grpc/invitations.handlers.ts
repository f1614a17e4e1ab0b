import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { InvitationsServiceService } from '@masthead/proto/community/invitations';
import type { InviteActivationService } from '../invitations/invite-activation.service.js';
import type { InvitePreviewService } from '../invitations/invite-preview.service.js';
import type { TeamInviteService } from '../invitations/team-invite.service.js';
import { inviteRecord } from '../teams/team.wire.js';
import { toTeamInfo } from './community.wire.js';
import { callerOf } from './teams.handlers.js';

interface Deps {
  teamInvites: TeamInviteService;
  activation: InviteActivationService;
  preview: InvitePreviewService;
}

export function invitationsHandlers({ teamInvites, activation, preview }: Deps): AsyncImplementation<typeof InvitationsServiceService> {
  return {
    createTeamInvite: ({ caller, teamId, fields }) => teamInvites.create(callerOf(caller), teamId, fields ?? {}),
    listTeamInvites: async ({ caller, teamId, query }) => {
      const page = await teamInvites.list(callerOf(caller), teamId, fromPageQuery(query));
      return { items: page.items, paginator: page.paginator };
    },
    getTeamInvite: ({ caller, teamId, inviteId }) => teamInvites.get(callerOf(caller), teamId, inviteId),
    updateTeamInvite: ({ caller, teamId, inviteId, fields }) => teamInvites.update(callerOf(caller), teamId, inviteId, fields ?? {}),
    deleteTeamInvite: async ({ caller, teamId, inviteId }) => {
      await teamInvites.delete(callerOf(caller), teamId, inviteId);
      return { result: true };
    },
    resendTeamInvite: async ({ caller, teamId, inviteId }) => {
      await teamInvites.resend(callerOf(caller), teamId, inviteId);
      return { result: true };
    },
    validateInvite: async (request) => {
      const { invite, team } = await preview.validate(request);
      return { invite: inviteRecord(invite), team: team ? toTeamInfo(team) : undefined };
    },
    checkInvite: async (request) => {
      await preview.check(request);
      return { result: true };
    },
    activateInvite: async ({ caller, invite, singleSubscription }) => {
      const { subscriptionId } = await activation.activate(callerOf(caller), invite, { singleSubscription });
      return subscriptionId === null ? { result: true } : { result: true, subscriptionId };
    },
    createInvitationCode: (request) => preview.createCode(request),
  };
}
