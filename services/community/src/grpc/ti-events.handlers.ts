import type { AsyncImplementation } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { TiEventsServiceService } from '@masthead/proto/community/ti_events';
import { caught } from '../support/caught.js';
import { tiEventsFailed, tiEventTicketsFailed } from '../ti-events/ti-event.errors.js';
import type { TiEventService } from '../ti-events/ti-event.service.js';
import { toPass, toTicket, toTiEvent } from './community.wire.js';

/** gRPC TiEventsService (proto/defs/masthead/community/v1/ti_events.proto). */
export function tiEventsHandlers(events: TiEventService, logger: Logger): AsyncImplementation<typeof TiEventsServiceService> {
  const guarded = caught(logger);
  return {
    listEvents: guarded(tiEventsFailed, async ({ resourceId }) => ({ items: (await events.listActive(resourceId)).map(toTiEvent) })),
    listEventTickets: guarded(tiEventTicketsFailed, async ({ resourceId, tiEventId }) => ({
      items: (await events.listedTickets(resourceId, tiEventId)).map(toTicket),
    })),
    listOwnedEvents: guarded(tiEventsFailed, async ({ resourceId, userId }) => ({
      items: (await events.ownedEvents(resourceId, userId)).map(toTiEvent),
    })),
    listTicketGroups: guarded(tiEventTicketsFailed, async ({ resourceId, userId }) => ({
      events: (await events.groups(resourceId, userId)).map((group) => ({
        event: toTiEvent(group.event),
        tickets: group.tickets.map((ticket) => ({ ticket: toTicket(ticket.ticket), passes: ticket.passes.map(toPass) })),
      })),
    })),
    upsertEvent: async (request) => toTiEvent(await events.upsertEvent(request)),
    upsertTicket: async (request) => toTicket(await events.upsertTicket(request)),
  };
}
