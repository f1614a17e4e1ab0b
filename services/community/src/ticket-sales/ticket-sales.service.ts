import { invalidQuantity, parseOrThrow, ticketsSoldOut } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { ReserveTicketsRequest, RevokeTicketsRequest } from '@masthead/proto/community/ticket_sales';
import type { PassRepository } from '../passes/pass.repository.js';
import type { PassRecord } from '../passes/pass.schema.js';
import { revokeCommand } from '../support/revocation-command.js';
import type { TiEventRepository } from '../ti-events/ti-event.repository.js';
import type { TiEventRecord } from '../ti-events/ti-event.schema.js';
import type { TicketRepository } from '../ti-events/ticket.repository.js';
import type { TicketRecord } from '../ti-events/ticket.schema.js';
import type { InventoryRepository } from './inventory.repository.js';
import type { Outcome, ReservationRepository } from './reservation.repository.js';
import type { ReservationRecord } from './reservation.schema.js';
import {
  invalidPurchaseKey,
  reservationConfirmed,
  reservationConflict,
  reservationNotFound,
  reservationPending,
  reservationReleased,
  reservationRevoked,
  ticketNotFound,
} from './ticket-sales.errors.js';
import type { RevocationRepository } from './revocation.repository.js';
import type { TicketRevocation } from './ticket-revocation.js';

/** The most units one purchase line may take (a checkout cart is not a bulk import). */
const MAX_QUANTITY = 100;
/** A reservation still `claiming` after this long belongs to a call that died: take it over. */
const STALE_CLAIM_MS = 30_000;

export type ReservationStatus = 'reserved' | Outcome;

export interface ReservationView {
  reservation: ReservationRecord;
  status: ReservationStatus;
}

export interface TicketOfferView {
  ticket: TicketRecord;
  event: TiEventRecord;
  available: number;
}

interface Deps {
  events: TiEventRepository;
  tickets: TicketRepository;
  inventory: InventoryRepository;
  reservations: ReservationRepository;
  passes: PassRepository;
  revocations: RevocationRepository;
  revocation: TicketRevocation;
  publisher: EventPublisher;
  /** How long unconfirmed units stay held when the call does not say (TICKET_HOLD_SECONDS). */
  defaultHoldSeconds: number;
}

/**
 * The ticket inventory behind checkout (docs/adr/0151): reserve before the charge, confirm into
 * passes after it, release when it failed. Units are unique claims, so `quantity` is never
 * oversold; the outcome of a reservation is a unique insert, so it ends once.
 */
export class TicketSalesService {
  constructor(private readonly deps: Deps) {}

  /** An active ticket of an active event of the resource. 404 ti_event_ticket_not_found. */
  async offer(resourceId: number, ticketId: number): Promise<TicketOfferView> {
    const { ticket, event } = await this.sellable(resourceId, ticketId);
    return { ticket, event, available: await this.deps.inventory.available(ticket) };
  }

  private async sellable(resourceId: number, ticketId: number): Promise<{ ticket: TicketRecord; event: TiEventRecord }> {
    const ticket = ticketId > 0 ? await this.deps.tickets.find(resourceId, ticketId) : null;
    const event = ticket?.active ? await this.deps.events.find(resourceId, ticket.ti_event_id) : null;
    if (!ticket || !event?.active) throw ticketNotFound();
    return { ticket, event };
  }

  async reserve(request: ReserveTicketsRequest): Promise<ReservationView> {
    const key = request.purchaseKey.trim();
    if (!key) throw invalidPurchaseKey();
    if (!Number.isInteger(request.quantity) || request.quantity < 1 || request.quantity > MAX_QUANTITY) throw invalidQuantity();
    const { ticket } = await this.sellable(request.resourceId, request.ticketId);
    const holdSeconds = request.holdSeconds > 0 ? request.holdSeconds : this.deps.defaultHoldSeconds;
    const now = new Date();
    const fresh: ReservationRecord = {
      _id: key,
      resource_id: request.resourceId,
      ticket_id: ticket._id,
      ti_event_id: ticket.ti_event_id,
      user_id: request.userId,
      quantity: request.quantity,
      unit_price: ticket.price,
      currency: ticket.currency,
      units: [],
      state: 'claiming',
      expires_at: new Date(now.getTime() + holdSeconds * 1000),
      created_at: now,
    };
    // A purchase that ended already (billing released it) is not reserved again under its key.
    const ended = await this.deps.reservations.outcome(key);
    if (ended) return { reservation: (await this.deps.reservations.find(key)) ?? fresh, status: ended };
    let reservation = fresh;
    if (!(await this.deps.reservations.insertIfAbsent(fresh))) {
      const existing = await this.deps.reservations.find(key);
      if (!existing) throw reservationPending();
      const same = (['resource_id', 'ticket_id', 'user_id', 'quantity'] as const).every((field) => existing[field] === fresh[field]);
      if (!same) throw reservationConflict();
      if (existing.state === 'held') return { reservation: existing, status: (await this.deps.reservations.outcome(key)) ?? 'reserved' };
      if (now.getTime() - new Date(existing.created_at).getTime() < STALE_CLAIM_MS) throw reservationPending();
      // The call that was claiming died: its units go back and this call claims anew.
      await this.deps.inventory.free(key);
      reservation = { ...existing, expires_at: fresh.expires_at };
    }
    const units = await this.claimUnits(ticket, key, request.quantity, reservation.expires_at);
    if (!units) {
      await this.deps.reservations.delete(key);
      throw ticketsSoldOut();
    }
    await this.deps.reservations.markHeld(key, units);
    return { reservation: { ...reservation, units, state: 'held' }, status: 'reserved' };
  }

  /**
   * Claims `count` units, all or none. A ticket found full first gives back its lapsed holds
   * and is tried once more; what was claimed is freed when the purchase cannot be served.
   */
  private async claimUnits(ticket: TicketRecord, key: string, count: number, expiresAt: Date): Promise<number[] | null> {
    const units: number[] = [];
    for (let round = 0; round < 2; round++) {
      const from = await this.deps.inventory.countClaimed(ticket._id);
      while (units.length < count) {
        const unit = await this.deps.inventory.claim(ticket._id, ticket.quantity, from, key, expiresAt);
        if (unit === null) break;
        units.push(unit);
      }
      if (units.length === count) return units;
      if (round > 0 || (await this.reclaimLapsed(ticket._id)) === 0) break;
    }
    await this.deps.inventory.free(key);
    return null;
  }

  /** Ends the ticket's lapsed, unconfirmed reservations as released; answers the units freed. */
  private async reclaimLapsed(ticketId: number): Promise<number> {
    let freed = 0;
    for (const key of await this.deps.inventory.expiredKeys(ticketId)) {
      const outcome = await this.deps.reservations.settle(key, 'released');
      if (outcome === 'released') {
        freed += await this.deps.inventory.free(key);
        continue;
      }
      // Confirmed meanwhile: its units stay sold; units a dead claim left beside them are freed.
      const reservation = await this.deps.reservations.find(key);
      freed += await this.deps.inventory.free(key, reservation?.units ?? []);
      await this.deps.inventory.keep(key);
    }
    return freed;
  }

  /**
   * The paid reservation becomes passes owned by the buyer; a retry answers the same passes. A
   * revoked key (its line refunded or disputed) issues none: checked before, and after issuing,
   * since a revocation may run meanwhile — then what was issued is taken back (docs/adr/0234).
   */
  async confirm(resourceId: number, key: string): Promise<{ view: ReservationView; passes: PassRecord[] }> {
    const reservation = await this.held(resourceId, key);
    if (await this.deps.revocations.reasonOf(key)) throw reservationRevoked();
    if ((await this.deps.reservations.settle(key, 'confirmed')) === 'released') throw reservationReleased();
    await this.deps.inventory.keep(key);
    const issued = await Promise.all(
      reservation.units.map((_, index) =>
        this.deps.passes.issue({
          resource_id: reservation.resource_id,
          ti_event_id: reservation.ti_event_id,
          ticket_id: reservation.ticket_id,
          owner_id: reservation.user_id,
          assign_id: null,
          extra: {},
          pass_key: `${key}:${index}`,
          purchase_key: key,
        }),
      ),
    );
    const revoked = await this.deps.revocations.reasonOf(key);
    if (revoked) {
      await this.deps.revocation.revoke(resourceId, key, revoked);
      throw reservationRevoked();
    }
    const passes = await this.deps.passes.listForPurchase(key);
    if (issued.some(Boolean)) {
      await this.deps.publisher.publish({
        name: 'ti_event_passes_issued',
        resourceId,
        payload: {
          purchase_key: key,
          ti_event_id: reservation.ti_event_id,
          ticket_id: reservation.ticket_id,
          owner_id: reservation.user_id,
          pass_ids: passes.map((pass) => pass._id),
        },
      });
    }
    return { view: { reservation, status: 'confirmed' }, passes };
  }

  /** A refunded or lost-dispute line's passes end (docs/adr/0234); answers the passes this call ended. */
  revoke(request: RevokeTicketsRequest): Promise<PassRecord[]> {
    const { resourceId, purchaseKey, reason } = parseOrThrow(revokeCommand, request);
    return this.deps.revocation.revoke(resourceId, purchaseKey, reason);
  }

  /** Gives the units back; a key never reserved is recorded as released, so it cannot be confirmed later. */
  async release(resourceId: number, key: string): Promise<ReservationView> {
    const reservation = await this.deps.reservations.find(key);
    if (reservation && reservation.resource_id !== resourceId) throw reservationNotFound();
    if ((await this.deps.reservations.settle(key, 'released')) === 'confirmed') throw reservationConfirmed();
    await this.deps.inventory.free(key);
    return { reservation: reservation ?? unknownReservation(resourceId, key), status: 'released' };
  }

  private async held(resourceId: number, key: string): Promise<ReservationRecord> {
    const reservation = key ? await this.deps.reservations.find(key) : null;
    if (!reservation || reservation.resource_id !== resourceId) throw reservationNotFound();
    if (reservation.state !== 'held') throw reservationPending();
    return reservation;
  }
}

/** What a release answers for a purchase key that never held units. */
const unknownReservation = (resourceId: number, key: string): ReservationRecord => ({
  _id: key,
  resource_id: resourceId,
  ticket_id: 0,
  ti_event_id: 0,
  user_id: 0,
  quantity: 0,
  unit_price: 0,
  currency: '',
  units: [],
  state: 'held',
  expires_at: new Date(0),
  created_at: new Date(0),
});
