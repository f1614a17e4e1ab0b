import type { AsyncImplementation } from '@masthead/core/grpc';
import type { TicketSalesServiceService } from '@masthead/proto/community/ticket_sales';
import type { TicketSalesService } from '../ticket-sales/ticket-sales.service.js';
import { toPass, toReservation, toTicket, toTiEvent } from './community.wire.js';

/** gRPC TicketSalesService (proto/defs/masthead/community/v1/ticket_sales.proto): billing's checkout. */
export function ticketSalesHandlers(sales: TicketSalesService): AsyncImplementation<typeof TicketSalesServiceService> {
  return {
    getTicketOffer: async ({ resourceId, ticketId }) => {
      const { ticket, event, available } = await sales.offer(resourceId, ticketId);
      return { ticket: toTicket({ ticket, available }), event: toTiEvent(event) };
    },
    reserveTickets: async (request) => toReservation(await sales.reserve(request)),
    confirmTickets: async ({ resourceId, purchaseKey }) => {
      const { view, passes } = await sales.confirm(resourceId, purchaseKey);
      return { reservation: toReservation(view), passes: passes.map(toPass) };
    },
    releaseTickets: async ({ resourceId, purchaseKey }) => toReservation(await sales.release(resourceId, purchaseKey)),
    revokeTickets: async (request) => {
      const ended = await sales.revoke(request);
      return { purchaseKey: request.purchaseKey.trim(), passIds: ended.map((pass) => pass._id) };
    },
  };
}
