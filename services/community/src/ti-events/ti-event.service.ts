import { parseOrThrow } from '@masthead/core/errors';
import type { UpsertEventRequest, UpsertTicketRequest } from '@masthead/proto/community/ti_events';
import type { PassRepository } from '../passes/pass.repository.js';
import type { PassRecord } from '../passes/pass.schema.js';
import type { InventoryRepository } from '../ticket-sales/inventory.repository.js';
import { upsertEventCommand, upsertTicketCommand } from './ti-event.command.js';
import { tiEventsNotFound } from './ti-event.errors.js';
import type { TiEventRepository } from './ti-event.repository.js';
import type { TiEventRecord } from './ti-event.schema.js';
import type { TicketRepository } from './ticket.repository.js';
import type { TicketRecord } from './ticket.schema.js';

/** A ticket with what is left of it (document 2 F: `available`, clamped at zero). */
export interface TicketView {
  ticket: TicketRecord;
  available: number;
}

export interface TicketGroupView {
  ticket: TicketView;
  passes: PassRecord[];
}

export interface EventGroupView {
  event: TiEventRecord;
  tickets: TicketGroupView[];
}

interface Deps {
  events: TiEventRepository;
  tickets: TicketRepository;
  inventory: InventoryRepository;
  passes: PassRepository;
}

/** Events and tickets (document 2 F; docs/adr/0150): guest discovery, a member's groups, operator upserts. */
export class TiEventService {
  constructor(private readonly deps: Deps) {}

  /** GET /ti-events: the resource's active events. */
  listActive(resourceId: number): Promise<TiEventRecord[]> {
    return this.deps.events.listActive(resourceId);
  }

  /** An active event of the resource; 404 ti_events_not_found otherwise. */
  async activeEvent(resourceId: number, eventId: number): Promise<TiEventRecord> {
    const event = eventId > 0 ? await this.deps.events.find(resourceId, eventId) : null;
    if (!event?.active) throw tiEventsNotFound();
    return event;
  }

  /** GET /ti-event/{id}/tickets: the event's active, non-private tickets with what is left. */
  async listedTickets(resourceId: number, eventId: number): Promise<TicketView[]> {
    await this.activeEvent(resourceId, eventId);
    return this.withAvailable(await this.deps.tickets.listForEvent(resourceId, eventId, true));
  }

  /** GET /user/ti-events: events where the member owns a pass (attending only does not count). */
  async ownedEvents(resourceId: number, userId: number): Promise<TiEventRecord[]> {
    const passes = await this.deps.passes.listOwnedBy(resourceId, userId);
    return this.deps.events.findMany(resourceId, distinct(passes.map((pass) => pass.ti_event_id)));
  }

  /** GET /user/ti-event-tickets: passes the member owns or attends, by event and ticket. */
  async groups(resourceId: number, userId: number): Promise<EventGroupView[]> {
    const passes = await this.deps.passes.listOwnedOrAssigned(resourceId, userId);
    const [events, tickets] = await Promise.all([
      this.deps.events.findMany(resourceId, distinct(passes.map((pass) => pass.ti_event_id))),
      this.deps.tickets.findMany(resourceId, distinct(passes.map((pass) => pass.ticket_id))).then((rows) => this.withAvailable(rows)),
    ]);
    return events.map((event) => ({
      event,
      tickets: tickets
        .filter(({ ticket }) => ticket.ti_event_id === event._id)
        .map((ticket) => ({ ticket, passes: passes.filter((pass) => pass.ticket_id === ticket.ticket._id) })),
    }));
  }

  async upsertEvent(request: UpsertEventRequest): Promise<TiEventRecord> {
    const command = parseOrThrow(upsertEventCommand, request);
    return this.deps.events.upsert({
      resource_id: command.resourceId,
      title: command.title,
      description: command.description,
      active: command.active,
      photo: command.photo,
      start_date: command.startDate,
      end_date: command.endDate,
    });
  }

  async upsertTicket(request: UpsertTicketRequest): Promise<TicketView> {
    const command = parseOrThrow(upsertTicketCommand, request);
    const event = await this.deps.events.findAnywhere(command.tiEventId);
    if (!event) throw tiEventsNotFound();
    const ticket = await this.deps.tickets.upsert({
      resource_id: event.resource_id,
      ti_event_id: event._id,
      title: command.title,
      description: command.description,
      quantity: command.quantity,
      price: command.price,
      currency: command.currency,
      active: command.active,
      private: command.private,
      unassign_limit: command.unassignLimit,
    });
    const [view] = await this.withAvailable([ticket]);
    return view ?? { ticket, available: ticket.quantity };
  }

  /** What is left of each ticket: its quantity less the units sold or held, never below zero. */
  private withAvailable(tickets: TicketRecord[]): Promise<TicketView[]> {
    return Promise.all(tickets.map(async (ticket) => ({ ticket, available: await this.deps.inventory.available(ticket) })));
  }
}

const distinct = (ids: number[]): number[] => [...new Set(ids)];
