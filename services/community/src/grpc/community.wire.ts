import type { Team, TeamInfo } from '@masthead/proto/community';
import type { PassDetail, PassInvitation } from '@masthead/proto/community/passes';
import type { RecipientSlot, Slot, SlotActivation, Sponsorship } from '@masthead/proto/community/sponsorships';
import type { Invitation, ManagedTeam, TeamMember, TeamOverview } from '@masthead/proto/community/teams';
import type { TicketReservation } from '@masthead/proto/community/ticket_sales';
import type { Pass, Ticket, TiEvent } from '@masthead/proto/community/ti_events';
import type { InviteRecord } from '../invitations/invite.schema.js';
import type { TeamMembershipView } from '../members/member-summary.service.js';
import type { PassAssignmentRecord } from '../passes/pass-assignment.schema.js';
import type { PassRecord } from '../passes/pass.schema.js';
import type { PassDetailView } from '../passes/pass.service.js';
import type { RecipientSlotView, SlotActivationView } from '../sponsorships/recipient.service.js';
import type { SponsorshipRecord } from '../sponsorships/sponsorship.schema.js';
import type { SlotView, SponsorshipView } from '../sponsorships/sponsorship.views.js';
import type { ReservationView } from '../ticket-sales/ticket-sales.service.js';
import type { TiEventRecord } from '../ti-events/ti-event.schema.js';
import type { TicketView } from '../ti-events/ti-event.service.js';
import type { TeamMemberRecord } from '../teams/team-member.schema.js';
import type { TeamView } from '../teams/team.service.js';
import type { TeamRecord } from '../teams/team.schema.js';

/** Storage rows → CommunityService messages. The gateway shapes the JSON from these. */

export const toTeam = ({ team, relationship }: TeamMembershipView): Team => ({
  id: team._id,
  name: team.name,
  role: relationship.role,
  status: relationship.status,
});

/** The pass projection of the profile: {id, ti_event_id, ticket_id, owner_id, assign_id, extra}. */
export const toAssignedTicket = (pass: PassRecord): Record<string, unknown> => ({
  id: pass._id,
  ti_event_id: pass.ti_event_id,
  ticket_id: pass.ticket_id,
  owner_id: pass.owner_id,
  assign_id: pass.assign_id,
  extra: pass.extra ?? {},
});

export const toTeamInfo = (team: TeamRecord): TeamInfo => ({ id: team._id, name: team.name, ownerId: team.owner_id, active: team.active });

const iso = (date: Date) => new Date(date).toISOString();
const isoOrUndefined = (date: Date | null | undefined) => (date ? iso(date) : undefined);
const orUndefined = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

export const toManagedTeam = (team: TeamRecord): ManagedTeam => ({
  id: team._id,
  name: team.name,
  description: orUndefined(team.description),
  ownerId: team.owner_id,
  active: team.active,
  memberLimit: team.member_limit,
  allowedDomains: team.allowed_domains ?? [],
  createdAt: iso(team.created_at),
  updatedAt: iso(team.updated_at ?? team.created_at),
});

export const toTeamMember = (row: TeamMemberRecord): TeamMember => ({
  id: row._id,
  teamId: row.team_id,
  userId: row.user_id,
  role: row.role,
  status: row.status,
  pricingId: orUndefined(row.pricing_id),
  createdAt: iso(row.created_at),
  updatedAt: iso(row.updated_at ?? row.created_at),
});

export const toInvitation = (invite: InviteRecord): Invitation => ({
  id: invite._id,
  email: orUndefined(invite.email),
  userName: orUndefined(invite.user_name),
  title: invite.title,
  description: invite.description,
  code: invite.code,
  activationsLimit: invite.activations_limit,
  teamId: orUndefined(invite.team_id),
  pricingId: orUndefined(invite.pricing_id),
  startDate: isoOrUndefined(invite.start_date),
  endDate: isoOrUndefined(invite.end_date),
  createdAt: iso(invite.created_at),
});

/**
 * What a team's list item counts (docs/adr/0130): relationships that are not removed, every
 * invite, and the distinct Pricing IDs its relationships and invites hold.
 */
export const toTeamOverview = ({ team, members, invites }: TeamView): TeamOverview => ({
  team: toManagedTeam(team),
  usersCount: members.filter((row) => row.status !== 'removed').length,
  invites: invites.map(toInvitation),
  pricingIds: [...new Set([...members, ...invites].map((row) => row.pricing_id).filter((id): id is number => typeof id === 'number'))],
});

/* ---- Events, tickets, passes (TiEventsService, PassesService, TicketSalesService) ---- */

export const toTiEvent = (event: TiEventRecord): TiEvent => ({
  id: event._id,
  resourceId: event.resource_id,
  title: event.title,
  description: orUndefined(event.description),
  active: event.active,
  photo: event.photo ?? [],
  startDate: isoOrUndefined(event.start_date),
  endDate: isoOrUndefined(event.end_date),
  createdAt: iso(event.created_at),
  updatedAt: iso(event.updated_at ?? event.created_at),
});

export const toTicket = ({ ticket, available }: TicketView): Ticket => ({
  id: ticket._id,
  tiEventId: ticket.ti_event_id,
  title: ticket.title,
  description: orUndefined(ticket.description),
  quantity: ticket.quantity,
  available,
  price: ticket.price,
  currency: ticket.currency,
  active: ticket.active,
  private: ticket.private,
  unassignLimit: ticket.unassign_limit,
  createdAt: iso(ticket.created_at),
  updatedAt: iso(ticket.updated_at ?? ticket.created_at),
});

export const toPass = (pass: PassRecord): Pass => ({
  id: pass._id,
  tiEventId: pass.ti_event_id,
  ticketId: pass.ticket_id,
  ownerId: pass.owner_id,
  assignId: orUndefined(pass.assign_id),
  extra: pass.extra ?? {},
  createdAt: iso(pass.created_at),
  updatedAt: iso(pass.updated_at ?? pass.created_at),
});

export const toPassInvitation = (assignment: PassAssignmentRecord): PassInvitation => ({
  passId: assignment._id,
  kind: assignment.kind,
  status: assignment.status,
  email: orUndefined(assignment.email),
  code: orUndefined(assignment.code),
  userId: orUndefined(assignment.user_id),
  createdAt: iso(assignment.created_at),
  assignedAt: isoOrUndefined(assignment.assigned_at),
});

export const toPassDetail = ({ pass, assignment }: PassDetailView): PassDetail => ({
  pass: toPass(pass),
  invitation: assignment ? toPassInvitation(assignment) : undefined,
});

export const toReservation = ({ reservation, status }: ReservationView): TicketReservation => ({
  purchaseKey: reservation._id,
  resourceId: reservation.resource_id,
  ticketId: reservation.ticket_id,
  tiEventId: reservation.ti_event_id,
  userId: reservation.user_id,
  quantity: reservation.quantity,
  unitPrice: reservation.unit_price,
  currency: reservation.currency,
  status,
  expiresAt: status === 'reserved' ? iso(reservation.expires_at) : undefined,
});

/* ---- Sponsorships (SponsorshipsService) ---- */

export const toSlot = ({ slot, activations }: SlotView, withRecipients = false): Slot => ({
  id: slot._id,
  sponsorshipId: slot.sponsorship_id,
  code: slot.code,
  recipientEmails: slot.recipient_emails ?? [],
  seats: slot.seats,
  usedSeats: activations.length,
  recipients: withRecipients
    ? activations.map((activation) => ({
        userId: activation.user_id,
        membershipId: orUndefined(activation.membership_id),
        isPayingBySponsor: activation.is_paying_by_sponsor,
        activatedAt: iso(activation.created_at),
      }))
    : [],
  createdAt: iso(slot.created_at),
  updatedAt: iso(slot.updated_at ?? slot.created_at),
});

/** The parent record; `view` adds the slots and the first associated membership. */
export const toSponsorship = (sponsorship: SponsorshipRecord, view?: SponsorshipView): Sponsorship => ({
  id: sponsorship._id,
  resourceId: sponsorship.resource_id,
  sponsorId: sponsorship.sponsor_id,
  pricingId: sponsorship.pricing_id,
  title: sponsorship.title,
  description: sponsorship.description,
  isPayingBySponsor: sponsorship.is_paying_by_sponsor,
  autorenew: view?.autorenew ?? sponsorship.autorenew,
  isAllowedNextSubscription: view?.isAllowedNextSubscription ?? false,
  slots: view?.slots.map((slot) => toSlot(slot)) ?? [],
  membership: view?.membership ?? undefined,
  createdAt: iso(sponsorship.created_at),
  updatedAt: iso(sponsorship.updated_at ?? sponsorship.created_at),
});

export const toRecipientSlot = ({ slot, sponsorship, usedSeats }: RecipientSlotView): RecipientSlot => ({
  slot: { ...toSlot({ slot, activations: [] }), usedSeats },
  sponsorship: toSponsorship(sponsorship),
});

export const toSlotActivation = ({ activation, sponsorship }: SlotActivationView): SlotActivation => ({
  slotId: activation.slot_id,
  sponsorshipId: sponsorship._id,
  pricingId: sponsorship.pricing_id,
  membershipId: orUndefined(activation.membership_id),
  isPayingBySponsor: activation.is_paying_by_sponsor,
});
