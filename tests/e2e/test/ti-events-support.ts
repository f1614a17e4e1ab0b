import { randomUUID } from 'node:crypto';
import { createClients, type Clients } from '@masthead/core/clients';
import type { Ticket, TiEvent } from '@masthead/proto/community/ti_events';
import type { UpsertEventRequest, UpsertTicketRequest } from '@masthead/proto/community/ti_events';
import { createTenant, type Tenant } from '@masthead/testkit';
import { afterAll } from 'vitest';
import type { Json } from './catalog-support.js';
import type { StackHandle } from './support.js';

type CommunityOperator = Clients<'tiEvents' | 'ticketSales' | 'passes' | 'sponsorships' | 'invitations'> & { close(): void };

/**
 * Events, tickets and passes arranged as operators and checkout make them: events and tickets
 * through the operator RPCs (the admin CLI's), passes through the ticket inventory that checkout
 * calls (reserve, then confirm as after a successful payment).
 */
export function ticketingKit(s: StackHandle) {
  let clients: CommunityOperator | undefined;
  afterAll(() => clients?.close());
  const community = (): CommunityOperator =>
    (clients ??= createClients(
      ['tiEvents', 'ticketSales', 'passes', 'sponsorships', 'invitations'],
      { community: s.stack.env['COMMUNITY_ADDR']! },
      { defaultDeadlineMs: 10_000 },
    ));

  /** A resource with ticketing on (or the given settings). */
  const tenant = (settings: Json = { ti_events_system: true }): Promise<Tenant> => createTenant(s.stack, { settings });

  const event = (tenantOf: Pick<Tenant, 'resourceId'>, title: string, overrides: Partial<UpsertEventRequest> = {}): Promise<TiEvent> =>
    community().tiEvents.upsertEvent({ resourceId: tenantOf.resourceId, title, active: true, photo: [], ...overrides });

  const ticket = (eventId: number, title: string, overrides: Partial<UpsertTicketRequest> = {}): Promise<Ticket> =>
    community().tiEvents.upsertTicket({
      tiEventId: eventId,
      title,
      quantity: 100,
      price: 2500,
      currency: 'USD',
      active: true,
      private: false,
      unassignLimit: 1,
      ...overrides,
    });

  /** Passes bought by `userId` as checkout buys them; answers their IDs. */
  const buy = async (tenantOf: Pick<Tenant, 'resourceId'>, ticketId: number, userId: number, quantity = 1): Promise<number[]> => {
    const purchaseKey = `e2e-${randomUUID()}`;
    await community().ticketSales.reserveTickets({
      resourceId: tenantOf.resourceId,
      ticketId,
      userId,
      quantity,
      purchaseKey,
      holdSeconds: 0,
    });
    const { passes } = await community().ticketSales.confirmTickets({ resourceId: tenantOf.resourceId, purchaseKey });
    return passes.map((pass) => pass.id);
  };

  return { community, tenant, event, ticket, buy };
}

/** The event projection of document 2 F (docs/adr/0150). */
export const eventBody = (event: TiEvent, overrides: Json = {}): Json => ({
  id: event.id,
  title: event.title,
  description: event.description ?? null,
  active: event.active,
  photo: event.photo,
  start_date: event.startDate ?? null,
  end_date: event.endDate ?? null,
  ...overrides,
});

/** The ticket projection of document 2 F with what is left. */
export const ticketBody = (ticket: Ticket, available: number): Json => ({
  id: ticket.id,
  ti_event_id: ticket.tiEventId,
  title: ticket.title,
  description: ticket.description ?? null,
  quantity: ticket.quantity,
  available,
  price: ticket.price,
  currency: ticket.currency,
});

/** The pass projection (as GET /user's assigned_tickets). */
export const passBody = (id: number, ticket: Ticket, ownerId: number, assignId: number | null = null, extra: Json = {}): Json => ({
  id,
  ti_event_id: ticket.tiEventId,
  ticket_id: ticket.id,
  owner_id: ownerId,
  assign_id: assignId,
  extra,
});
