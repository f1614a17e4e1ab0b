import { claimSlot } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { ticketUnitModel, type TicketUnitRecord } from './ticket-unit.schema.js';

/** Storage of ticket unit claims (ticket_units); results are plain objects. */
export class InventoryRepository {
  private readonly model: Model<TicketUnitRecord>;

  constructor(db: Connection) {
    this.model = ticketUnitModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Units of the ticket that count as sold: confirmed, or held and not yet expired. */
  countSold(ticketId: number, now = new Date()): Promise<number> {
    return this.model.countDocuments({ ticket_id: ticketId, $or: [{ expires_at: null }, { expires_at: { $gt: now } }] }).exec();
  }

  /** What is left of a ticket (document 2 F `available`): never below zero. */
  async available(ticket: { _id: number; quantity: number }): Promise<number> {
    return Math.max(0, ticket.quantity - (await this.countSold(ticket._id)));
  }

  /**
   * Claims one free unit below `quantity` for the reservation (a unique insert per unit number,
   * ADR 0002); null when every unit is taken. `from` is the count read before, a hint.
   */
  claim(ticketId: number, quantity: number, from: number, reservationKey: string, expiresAt: Date): Promise<number | null> {
    return claimSlot(
      (unit) =>
        this.model.create({
          _id: `${ticketId}:${unit}`,
          ticket_id: ticketId,
          unit,
          reservation_key: reservationKey,
          expires_at: expiresAt,
          created_at: new Date(),
        }),
      from,
      quantity,
    );
  }

  /** Every unit row of the ticket, expired holds included: where a claim's scan starts. */
  countClaimed(ticketId: number): Promise<number> {
    return this.model.countDocuments({ ticket_id: ticketId }).exec();
  }

  /** Purchase keys of the ticket's unconfirmed holds that lapsed. */
  async expiredKeys(ticketId: number, now = new Date()): Promise<string[]> {
    const rows = await this.model
      .find({ ticket_id: ticketId, expires_at: { $ne: null, $lte: now } }, { reservation_key: 1 })
      .lean<Pick<TicketUnitRecord, 'reservation_key'>[]>()
      .exec();
    return [...new Set(rows.map((row) => row.reservation_key))];
  }

  /** The reservation's units stay sold for good (it was confirmed). */
  async keep(reservationKey: string): Promise<void> {
    await this.model.updateMany({ reservation_key: reservationKey }, { $set: { expires_at: null } }).exec();
  }

  /** Frees units of the reservation (all of them, or those not in `except`). */
  async free(reservationKey: string, except: number[] = []): Promise<number> {
    const result = await this.model.deleteMany({ reservation_key: reservationKey, unit: { $nin: except } }).exec();
    return result.deletedCount;
  }
}
