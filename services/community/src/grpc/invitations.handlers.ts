import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { InvitationsServiceService } from '@masthead/proto/community/invitations';
import type { InviteActivationService } from '../invitations/invite-activation.service.js';
import type { InvitePreviewService } from '../invitations/invite-preview.service.js';
import type { TeamInviteService } from '../invitations/team-invite.service.js';
import { toInvitation, toTeamInfo } from './community.wire.js';
import { callerOf } from './teams.handlers.js';

interface Deps {
  teamInvites: TeamInviteService;
  activation: InviteActivationService;
  preview: InvitePreviewService;
}

export function invitationsHandlers({ teamInvites, activation, preview }: Deps): AsyncImplementation<typeof InvitationsServiceService> {
  return {
    createTeamInvite: async ({ caller, teamId, ...fields }) => toInvitation(await teamInvites.create(callerOf(caller), teamId, fields)),
    listTeamInvites: async ({ caller, teamId, query }) => {
      const page = await teamInvites.list(callerOf(caller), teamId, fromPageQuery(query));
      return { items: page.rows.map(toInvitation), paginator: page.paginator };
    },
    getTeamInvite: async ({ caller, teamId, inviteId }) => toInvitation(await teamInvites.get(callerOf(caller), teamId, inviteId)),
    updateTeamInvite: async ({ caller, teamId, inviteId, ...fields }) =>
      toInvitation(await teamInvites.update(callerOf(caller), teamId, inviteId, fields)),
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
      return { invite: toInvitation(invite), team: team ? toTeamInfo(team) : undefined };
    },
    checkInvite: async (request) => {
      await preview.check(request);
      return { result: true };
    },
    activateInvite: async ({ caller, invite, singleSubscription }) => {
      const { subscriptionId } = await activation.activate(callerOf(caller), invite, { singleSubscription });
      return subscriptionId === null ? { result: true } : { result: true, subscriptionId };
    },
    createInvitationCode: async (request) => toInvitation(await preview.createCode(request)),
  };
}
