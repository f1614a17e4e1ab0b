import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { PassesServiceService } from '@masthead/proto/community/passes';
import type { PassAttendance } from '../passes/pass-attendance.js';
import type { PassInvitationService } from '../passes/pass-invitation.service.js';
import type { PassService } from '../passes/pass.service.js';
import { toPass, toPassDetail, toPassInvitation, toTicket, toTiEvent } from './community.wire.js';
import { callerOf } from './teams.handlers.js';

interface Deps {
  passes: PassService;
  invitations: PassInvitationService;
  attendance: PassAttendance;
}

/** gRPC PassesService (proto/defs/masthead/community/v1/passes.proto). */
export function passesHandlers({ passes, invitations, attendance }: Deps): AsyncImplementation<typeof PassesServiceService> {
  return {
    listEventPasses: async ({ resourceId, tiEventId, query }) => {
      const page = await passes.listForEvent(resourceId, tiEventId, fromPageQuery(query));
      return { items: page.rows.map(toPass), paginator: page.paginator };
    },
    getEventAccess: async ({ resourceId, userId, tiEventId }) => {
      const passIds = await passes.access(resourceId, userId, tiEventId);
      return { access: passIds.length > 0, passIds };
    },
    getPass: async ({ caller, passId }) => toPassDetail(await passes.detail(callerOf(caller), passId)),
    assignPass: async ({ caller, passId, assignId }) => toPassDetail(await passes.assign(callerOf(caller), passId, assignId)),
    getUnassignLimit: async ({ caller, passId }) => {
      const view = await passes.unassignLimit(callerOf(caller), passId);
      return { passId: view.passId, canUnassign: view.canUnassign, unassignLimit: view.limit, unassignCount: view.count };
    },
    inviteAttendee: async ({ caller, passId, email }) => toPassInvitation(await passes.invite(callerOf(caller), passId, email)),
    deleteInvitation: async ({ caller, passId }) => toPassDetail(await passes.deleteInvitation(callerOf(caller), passId)),
    replaceExtra: async ({ caller, passId, extra }) => toPassDetail(await passes.replaceExtra(callerOf(caller), passId, extra)),
    validatePassInvite: async ({ resourceId, code }) => {
      const preview = await invitations.preview(resourceId, code);
      return {
        invitation: toPassInvitation(preview.invitation),
        pass: toPass(preview.pass),
        event: toTiEvent(preview.event),
        ticket: toTicket({ ticket: preview.ticket, available: 0 }),
      };
    },
    activatePassInvite: async ({ caller, code }) => toPassDetail(await invitations.activate(callerOf(caller), code)),
    redeemPassToken: async ({ resourceId, token }) => attendance.redeem(resourceId, token),
  };
}
