import { createClients } from '@masthead/core/clients';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { CommunityServiceService } from '@masthead/proto/community';
import { InvitationsServiceService } from '@masthead/proto/community/invitations';
import { PassesServiceService } from '@masthead/proto/community/passes';
import { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import { TeamsServiceService } from '@masthead/proto/community/teams';
import { TicketSalesServiceService } from '@masthead/proto/community/ticket_sales';
import { TiEventsServiceService } from '@masthead/proto/community/ti_events';
import type { CommunityConfig } from './config.js';
import { communityHandlers } from './grpc/handlers.js';
import { invitationsHandlers } from './grpc/invitations.handlers.js';
import { passesHandlers } from './grpc/passes.handlers.js';
import { sponsorshipsHandlers } from './grpc/sponsorships.handlers.js';
import { teamsHandlers } from './grpc/teams.handlers.js';
import { ticketSalesHandlers } from './grpc/ticket-sales.handlers.js';
import { tiEventsHandlers } from './grpc/ti-events.handlers.js';
import { ActivationGrant } from './invitations/activation-grant.js';
import { InviteActivationService } from './invitations/invite-activation.service.js';
import { InvitePreviewService } from './invitations/invite-preview.service.js';
import { InviteRepository } from './invitations/invite.repository.js';
import { PreviewFlood } from './invitations/preview-flood.js';
import { TeamInviteService } from './invitations/team-invite.service.js';
import { MemberSummaryService } from './members/member-summary.service.js';
import { announceSummaryChanges } from './members/summary-changes.js';
import { PassAssignmentRepository } from './passes/pass-assignment.repository.js';
import { PassAttendance } from './passes/pass-attendance.js';
import { PassInvitationService } from './passes/pass-invitation.service.js';
import { PassRepository } from './passes/pass.repository.js';
import { PassService } from './passes/pass.service.js';
import { PassTokenRepository } from './passes/pass-token.repository.js';
import { RecipientService } from './sponsorships/recipient.service.js';
import { SlotGrant } from './sponsorships/slot-grant.js';
import { SlotRepository } from './sponsorships/slot.repository.js';
import { SlotService } from './sponsorships/slot.service.js';
import { SponsorshipPurchaseService } from './sponsorships/sponsorship-purchase.service.js';
import { SponsorshipRevocationRepository } from './sponsorships/sponsorship-revocation.repository.js';
import { SponsorshipRevocation } from './sponsorships/sponsorship-revocation.js';
import { SponsorshipRepository } from './sponsorships/sponsorship.repository.js';
import { SponsorshipService } from './sponsorships/sponsorship.service.js';
import { SponsorshipViews } from './sponsorships/sponsorship.views.js';
import { ClaimOutcomes } from './support/claim-outcomes.js';
import { IdentityMemberDirectory } from './support/member-directory.js';
import { BillingPaymentCustomers } from './support/payment-customers.js';
import { PendingGrantPass } from './support/pending-grants.js';
import { InventoryRepository } from './ticket-sales/inventory.repository.js';
import { ReservationRepository } from './ticket-sales/reservation.repository.js';
import { RevocationRepository } from './ticket-sales/revocation.repository.js';
import { TicketRevocation } from './ticket-sales/ticket-revocation.js';
import { TicketSalesService } from './ticket-sales/ticket-sales.service.js';
import { TiEventRepository } from './ti-events/ti-event.repository.js';
import { TiEventService } from './ti-events/ti-event.service.js';
import { TicketRepository } from './ti-events/ticket.repository.js';
import { PricingSeatRepository } from './teams/pricing-seat.repository.js';
import { PricingSeats } from './teams/pricing-seats.js';
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
    ['pricings', 'memberships', 'memberViews', 'paymentSources', 'identity'],
    { catalog: config.CATALOG_ADDR, billing: config.BILLING_ADDR, identity: config.IDENTITY_ADDR },
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
  const tiEvents = new TiEventRepository(runtime.db);
  const tickets = new TicketRepository(runtime.db);
  const inventory = new InventoryRepository(runtime.db);
  const reservations = new ReservationRepository(runtime.db);
  const assignments = new PassAssignmentRepository(runtime.db);
  const passTokens = new PassTokenRepository(runtime.db);
  const sponsorships = new SponsorshipRepository(runtime.db);
  const slots = new SlotRepository(runtime.db);
  const seats = new PricingSeatRepository(runtime.db);
  const outcomes = new ClaimOutcomes(runtime.db);
  const revocations = new RevocationRepository(runtime.db);
  const sponsorshipRevocations = new SponsorshipRevocationRepository(runtime.db);
  await Promise.all(
    [
      teams,
      members,
      passes,
      invites,
      flood,
      tiEvents,
      tickets,
      inventory,
      reservations,
      assignments,
      passTokens,
      sponsorships,
      slots,
      seats,
      outcomes,
      revocations,
      sponsorshipRevocations,
    ].map((repository) => repository.ready()),
  );

  const events = runtime.events;
  const access = new TeamAccess({ teams, members, memberViews });
  const memberSummary = new MemberSummaryService({ teams, teamMembers: members, passes });
  const tiEventService = new TiEventService({ events: tiEvents, tickets, inventory, passes });
  const attendance = new PassAttendance({ passes, tokens: passTokens, events, tokenTtlSeconds: config.PASS_TOKEN_TTL_SECONDS });
  const passDeps = { passes, assignments, attendance, tickets };
  const sponsorshipDeps = { sponsorships, slots, memberships, events };
  const sponsorshipViews = new SponsorshipViews({ slots, memberships });
  const pricingSeats = new PricingSeats({ seats, pricings });
  const activation = new InviteActivationService({
    invites,
    teams,
    members,
    pricingSeats,
    pricings,
    payments,
    grant: new ActivationGrant({ invites, members, pricingSeats, memberships, outcomes, events, slots }),
  });
  const recipients = new RecipientService({ sponsorships, slots, events, grant: new SlotGrant({ slots, memberships, outcomes, events }) });
  const sponsorshipRevocation = new SponsorshipRevocation({
    sponsorships,
    slots,
    revocations: sponsorshipRevocations,
    memberships,
    outcomes,
    events,
  });
  // Started here, outside any call: a pass must not inherit a request's deadline (ADR 0100).
  const pendingGrants = new PendingGrantPass({
    grants: [activation, recipients],
    leaseMs: config.GRANT_LEASE_MS,
    batch: config.GRANT_PASS_BATCH,
    logger: runtime.logger,
  });
  pendingGrants.start(config.GRANT_PASS_INTERVAL_MS);
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
        implementation: teamsHandlers(new TeamService({ teams, members, pricingSeats, invites, access, events })),
      },
      {
        name: 'masthead.community.v1.InvitationsService',
        definition: InvitationsServiceService,
        implementation: invitationsHandlers({
          teamInvites: new TeamInviteService({ invites, members, access, pricings, payments, events }),
          activation,
          preview: new InvitePreviewService({ invites, teams, pricings, flood }),
        }),
      },
      {
        name: 'masthead.community.v1.TiEventsService',
        definition: TiEventsServiceService,
        implementation: tiEventsHandlers(tiEventService, runtime.logger),
      },
      {
        name: 'masthead.community.v1.PassesService',
        definition: PassesServiceService,
        implementation: passesHandlers({
          passes: new PassService({
            ...passDeps,
            tiEvents: tiEventService,
            members: new IdentityMemberDirectory(clients.identity),
            events,
          }),
          invitations: new PassInvitationService({ ...passDeps, events: tiEvents }),
          attendance,
        }),
      },
      {
        name: 'masthead.community.v1.TicketSalesService',
        definition: TicketSalesServiceService,
        implementation: ticketSalesHandlers(
          new TicketSalesService({
            events: tiEvents,
            tickets,
            inventory,
            reservations,
            passes,
            revocations,
            revocation: new TicketRevocation({ passes, assignments, tokens: passTokens, inventory, revocations, publisher: events }),
            publisher: events,
            defaultHoldSeconds: config.TICKET_HOLD_SECONDS,
          }),
        ),
      },
      {
        name: 'masthead.community.v1.SponsorshipsService',
        definition: SponsorshipsServiceService,
        implementation: sponsorshipsHandlers({
          sponsorships: new SponsorshipService({ ...sponsorshipDeps, views: sponsorshipViews }),
          slots: new SlotService(sponsorshipDeps),
          recipients,
          purchases: new SponsorshipPurchaseService({
            sponsorships,
            slots,
            pricings,
            revocations: sponsorshipRevocations,
            revocation: sponsorshipRevocation,
            events,
          }),
          views: sponsorshipViews,
          logger: runtime.logger,
        }),
      },
    ],
    () => {
      pendingGrants.stop();
      clients.close();
      return Promise.resolve();
    },
  );
}
