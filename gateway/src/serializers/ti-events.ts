import type { EventAccess, PassDetail, PassInvitation, PassInvitePreview, UnassignLimit } from '@masthead/proto/community/passes';
import type { EventGroup, Pass, Ticket, TiEvent } from '@masthead/proto/community/ti_events';

/** Events, tickets and passes (document 2 F; docs/adr/0150, 0152): the only place their JSON is spelled. */

type Json = Record<string, unknown>;

/** Event: the spec's `id, title, active, photo`, with the description and dates operators set. */
export const serializeTiEvent = (event: TiEvent): Json => ({
  id: event.id,
  title: event.title,
  description: event.description ?? null,
  active: event.active,
  photo: event.photo,
  start_date: event.startDate ?? null,
  end_date: event.endDate ?? null,
});

/** A ticket as sold: without what is left (a preview is no place to count). */
const serializeTicketOffer = (ticket: Ticket): Json => ({
  id: ticket.id,
  ti_event_id: ticket.tiEventId,
  title: ticket.title,
  description: ticket.description ?? null,
  price: ticket.price,
  currency: ticket.currency,
});

/** Ticket: `id, ti_event_id, title, quantity, available, price, currency` (available never below 0). */
export const serializeTicket = (ticket: Ticket): Json => ({
  id: ticket.id,
  ti_event_id: ticket.tiEventId,
  title: ticket.title,
  description: ticket.description ?? null,
  quantity: ticket.quantity,
  available: ticket.available,
  price: ticket.price,
  currency: ticket.currency,
});

/** Pass: `id, owner_id, assign_id, extra`, with its event and ticket, as GET /user's assigned_tickets. */
export const serializePass = (pass: Pass): Json => ({
  id: pass.id,
  ti_event_id: pass.tiEventId,
  ticket_id: pass.ticketId,
  owner_id: pass.ownerId,
  assign_id: pass.assignId ?? null,
  extra: pass.extra ?? {},
});

/** An invitation or assignment of a pass, as its owner sees it (the code included). */
export const serializePassInvitation = (invitation: PassInvitation): Json => ({
  pass_id: invitation.passId,
  kind: invitation.kind,
  status: invitation.status,
  email: invitation.email ?? null,
  code: invitation.code ?? null,
  user_id: invitation.userId ?? null,
  created_at: invitation.createdAt,
  assigned_at: invitation.assignedAt ?? null,
});

/** A pass its owner reads or changes: the pass and its invitation (null when there is none). */
export const serializePassDetail = (detail: PassDetail): Json => ({
  ...(detail.pass ? serializePass(detail.pass) : {}),
  invitation: detail.invitation ? serializePassInvitation(detail.invitation) : null,
});

/**
 * GET /user/ti-event-tickets: `user_ti_events[]` > `user_ti_event_tickets[]` >
 * `user_ti_event_ticket_passes[]`; the top-level group is omitted when empty, so `{}` is a result.
 */
export const serializeTicketGroups = (events: EventGroup[]): Json =>
  events.length === 0
    ? {}
    : {
        user_ti_events: events.map((group) => ({
          ...(group.event ? serializeTiEvent(group.event) : {}),
          user_ti_event_tickets: group.tickets.map((ticket) => ({
            ...(ticket.ticket ? serializeTicket(ticket.ticket) : {}),
            user_ti_event_ticket_passes: ticket.passes.map(serializePass),
          })),
        })),
      };

/** GET /user/ti-event/{id}/access: assignment decides; the assigned passes name themselves. */
export const serializeEventAccess = (access: EventAccess): Json => ({ access: access.access, pass_ids: access.passIds });

export const serializeUnassignLimit = (limit: UnassignLimit): Json => ({
  pass_id: limit.passId,
  can_unassign: limit.canUnassign,
  unassign_limit: limit.unassignLimit,
  unassign_count: limit.unassignCount,
});

/** POST /ti-event/pass/invite-validation: the invited email and what the pass admits to. */
export const serializePassInvitePreview = (preview: PassInvitePreview): Json => ({
  result: true,
  email: preview.invitation?.email ?? null,
  pass_id: preview.pass?.id ?? null,
  ti_event: preview.event ? serializeTiEvent(preview.event) : null,
  ticket: preview.ticket ? serializeTicketOffer(preview.ticket) : null,
});
