import { invalidQuantity, isServiceError, ticketsSoldOut } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { ReserveTicketsRequest, TicketReservation, TicketSalesServiceService } from '@masthead/proto/community/ticket_sales';
import type { Member } from '../support/member-scope.js';
import { idempotencyKeyReused, invalidItemKey, purchaseInProgress, purchaseReleased } from './checkout.errors.js';
import {
  itemIdOf,
  purchaseKeyOf,
  type Fulfilment,
  type FulfilmentTarget,
  type ItemRequest,
  type PricedItem,
  type ReleaseTarget,
  type RevocationReason,
} from './fulfilment.js';

/** What clients send as `item_type` for event tickets. */
export const TICKET_ITEM = 'ti_ticket';

/** Community's limit of units per purchase line (ticket-sales MAX_QUANTITY). */
const MAX_QUANTITY = 100;
/** A parallel call with the same key is claiming units (a few inserts): poll it for up to about two seconds. */
const PENDING_ATTEMPTS = 20;
const PENDING_POLL_MS = 100;

interface Deps {
  ticketSales: ServiceClient<typeof TicketSalesServiceService>;
  logger: Logger;
}

const codeOf = (error: unknown): string | null => (isServiceError(error) ? error.code : null);

/**
 * The `ti_ticket` item (docs/adr/0142, 0157): `quantity` units of an active ticket of an active
 * event of the resource, sold through community's ticket inventory (docs/adr/0151). Each purchase
 * line is one reservation keyed by the line's purchase key, so a retried, resumed or crashed
 * checkout names the same reservation and the same passes.
 */
export class TicketFulfilment implements Fulfilment {
  readonly itemType = TICKET_ITEM;

  constructor(private readonly deps: Deps) {}

  /** The ticket's price times the quantity; the title names the event and the ticket. */
  async price(member: Member, item: ItemRequest): Promise<PricedItem> {
    const ticketId = itemIdOf(item.itemKey);
    if (ticketId <= 0) throw invalidItemKey();
    const quantity = item.quantity;
    if (!Number.isInteger(quantity) || quantity < 1 || quantity > MAX_QUANTITY) throw invalidQuantity();
    let offer;
    try {
      offer = await this.deps.ticketSales.getTicketOffer({ resourceId: member.resourceId, ticketId }, { idempotent: true });
    } catch (error) {
      if (codeOf(error) === 'ti_event_ticket_not_found') throw invalidItemKey();
      throw error;
    }
    const ticket = offer.ticket!;
    return {
      itemType: TICKET_ITEM,
      itemKey: String(ticketId),
      itemId: ticket.id,
      title: offer.event ? `${offer.event.title}: ${ticket.title}` : ticket.title,
      price: Number(ticket.price) * quantity,
      currency: ticket.currency,
      terms: { quantity, unit_price: Number(ticket.price) },
    };
  }

  /**
   * Claims the units under the line's purchase key, all or none (409 ti_event_tickets_sold_out).
   * A parallel request with the same Idempotency-Key may be claiming them right now: wait for it
   * and share its reservation.
   */
  async reserve(member: Member, item: PricedItem, claimKey: string, line: number): Promise<void> {
    let reservation;
    try {
      reservation = await this.reserveUnits({
        resourceId: member.resourceId,
        ticketId: item.itemId,
        userId: member.userId,
        quantity: quantityOf(item),
        purchaseKey: purchaseKeyOf(claimKey, line),
        holdSeconds: 0,
      });
    } catch (error) {
      switch (codeOf(error)) {
        case 'ti_event_tickets_sold_out':
          throw ticketsSoldOut();
        case 'ti_event_ticket_not_found':
          throw invalidItemKey();
        case 'ticket_reservation_conflict':
          throw idempotencyKeyReused();
        default:
          throw error;
      }
    }
    if (reservation.status === 'released') throw purchaseReleased();
  }

  /**
   * Reserves under the request's purchase key; a parallel call claiming under the same key right
   * now (a retry with the same Idempotency-Key, the webhook beside the member's completion) is
   * waited for, then shared. 409 purchase_in_progress when it does not finish in time.
   */
  private async reserveUnits(request: ReserveTicketsRequest): Promise<TicketReservation> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.ticketSales.reserveTickets(request);
      } catch (error) {
        if (codeOf(error) !== 'ticket_reservation_pending') throw error;
        if (attempt >= PENDING_ATTEMPTS) throw purchaseInProgress();
        await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
      }
    }
  }

  /**
   * The paid reservation becomes passes; answers the first pass's ID. A reservation whose hold
   * lapsed and was given back before the payment settled (a 3-D Secure finished late) is
   * reserved once more under a successor key and confirmed: the member paid for these units.
   * When they are gone meanwhile, the successor key is closed (released) before answering 409
   * ti_event_tickets_sold_out, so that no later completion issues passes for a line checkout
   * refunds (docs/adr/0201); a completion that confirmed it first keeps its passes.
   */
  async fulfil(target: FulfilmentTarget, item: PricedItem): Promise<number> {
    const purchaseKey = purchaseKeyOf(target.claimKey, target.line);
    try {
      return await this.confirm(target.resourceId, purchaseKey);
    } catch (error) {
      if (codeOf(error) !== 'ticket_reservation_released') throw error;
    }
    const lateKey = lateKeyOf(purchaseKey);
    try {
      const reservation = await this.reserveUnits({
        resourceId: target.resourceId,
        ticketId: item.itemId,
        userId: target.userId,
        quantity: quantityOf(item),
        purchaseKey: lateKey,
        holdSeconds: 0,
      });
      if (reservation.status !== 'released') return await this.confirm(target.resourceId, lateKey);
    } catch (error) {
      const code = codeOf(error);
      if (code !== 'ti_event_tickets_sold_out' && code !== 'ticket_reservation_released') throw error;
    }
    try {
      await this.deps.ticketSales.releaseTickets({ resourceId: target.resourceId, purchaseKey: lateKey });
    } catch (error) {
      if (codeOf(error) !== 'ticket_reservation_confirmed') throw error;
      return this.confirm(target.resourceId, lateKey);
    }
    this.deps.logger.warn({ transaction: target.transactionId, purchaseKey }, 'paid tickets could not be issued: the line is refunded');
    throw ticketsSoldOut();
  }

  private async confirm(resourceId: number, purchaseKey: string): Promise<number> {
    const { passes } = await this.deps.ticketSales.confirmTickets({ resourceId, purchaseKey });
    return passes[0]?.id ?? 0;
  }

  /**
   * The line's passes end and its units are free again (community; docs/adr/0234): those of the
   * purchase key and of its successor for a late confirmation, which is closed too.
   */
  async revoke(target: FulfilmentTarget, _grantedId: number | null, reason: RevocationReason): Promise<void> {
    const purchaseKey = purchaseKeyOf(target.claimKey, target.line);
    for (const key of [purchaseKey, lateKeyOf(purchaseKey)]) {
      await this.deps.ticketSales.revokeTickets({ resourceId: target.resourceId, purchaseKey: key, reason });
    }
  }

  /** Gives the units back; a reservation confirmed meanwhile (a webhook completed it) stays sold. */
  async release(target: ReleaseTarget): Promise<void> {
    const purchaseKey = purchaseKeyOf(target.claimKey, target.line);
    try {
      await this.deps.ticketSales.releaseTickets({ resourceId: target.resourceId, purchaseKey });
    } catch (error) {
      if (codeOf(error) !== 'ticket_reservation_confirmed') throw error;
      this.deps.logger.warn({ purchaseKey }, 'a confirmed ticket reservation was not released');
    }
  }
}

const quantityOf = (item: Pick<PricedItem, 'terms'>): number => Number(item.terms['quantity'] ?? 1);

/** The key a late confirmation reserves under once the line's hold lapsed (docs/adr/0157). */
const lateKeyOf = (purchaseKey: string): string => `${purchaseKey}:late`;
