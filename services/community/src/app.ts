import { createClients } from '@masthead/core/clients';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import type { CommunityConfig } from './config.js';
import { communityHandlers } from './grpc/handlers.js';
import { invitationsHandlers } from './grpc/invitations.handlers.js';
import { teamsHandlers } from './grpc/teams.handlers.js';
import { InviteActivationService } from './invitations/invite-activation.service.js';
import { InvitePreviewService } from './invitations/invite-preview.service.js';
import { InviteRepository } from './invitations/invite.repository.js';
import { PreviewFlood } from './invitations/preview-flood.js';
import { TeamInviteService } from './invitations/team-invite.service.js';
import { MemberSummaryService } from './members/member-summary.service.js';
import { announceSummaryChanges } from './members/summary-changes.js';
import { PassRepository } from './passes/pass.repository.js';
import { BillingPaymentCustomers } from './support/payment-customers.js';
import { TeamAccess } from './teams/team-access.js';
import { TeamMemberRepository } from './teams/team-member.repository.js';
import { TeamRepository } from './teams/team.repository.js';
import { TeamService } from './teams/team.service.js';

export type { CommunityConfig } from './config.js';
export { communityEnv, loadCommunityConfig } from './config.js';

/** Composition root: config → connections → repositories → domain → gRPC handlers. */
export async function startCommunityService(config: CommunityConfig, logger?: Logger): Promise<RunningService> {
  const runtime = await openServiceRuntime('community', config, logger);
  const clients = createClients(
    ['pricings', 'memberships', 'memberViews', 'paymentSources'],
    { catalog: config.CATALOG_ADDR, billing: config.BILLING_ADDR },
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS },
  );
  const { pricings, memberships, memberViews } = clients;
  const payments = new BillingPaymentCustomers(clients.paymentSources);
  announceSummaryChanges(runtime.db, runtime.events);
  const teams = new TeamRepository(runtime.db);
  const members = new TeamMemberRepository(runtime.db);
  const passes = new PassRepository(runtime.db);
  const invites = new InviteRepository(runtime.db);
  const flood = new PreviewFlood(runtime.db);
  await Promise.all([teams, members, passes, invites, flood].map((repository) => repository.ready()));

  const events = runtime.events;
  const access = new TeamAccess({ teams, members, memberViews });
  const memberSummary = new MemberSummaryService({ teams, teamMembers: members, passes });
  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      {
        name: 'masthead.community.v1.CommunityService',
        definition: CommunityServiceService,
        implementation: communityHandlers({ memberSummary, teams }),
      },
      {
        name: 'masthead.community.v1.TeamsService',
        definition: TeamsServiceService,
        implementation: teamsHandlers(new TeamService({ teams, members, invites, access, events })),
      },
      {
        name: 'masthead.community.v1.InvitationsService',
        definition: InvitationsServiceService,
        implementation: invitationsHandlers({
          teamInvites: new TeamInviteService({ invites, members, access, pricings, payments, events }),
          activation: new InviteActivationService({ invites, teams, members, pricings, memberships, payments, events }),
          preview: new InvitePreviewService({ invites, teams, pricings, flood }),
        }),
      },
    ],
    () => {
      clients.close();
      return Promise.resolve();
    },
  );
}
