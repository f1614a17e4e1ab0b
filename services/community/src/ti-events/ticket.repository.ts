import type { Connection, Model } from 'mongoose';
import { upsertByKey } from '../support/upsert-by-key.js';
import { ticketModel, type TicketRecord } from './ticket.schema.js';

export type TicketFields = Omit<TicketRecord, '_id' | 'created_at' | 'updated_at'>;

/** Storage of ti_event_tickets. Every read names the resource; results are plain objects. */
export class TicketRepository {
  private readonly model: Model<TicketRecord>;

  constructor(private readonly db: Connection) {
    this.model = ticketModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number, id: number): Promise<TicketRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<TicketRecord>().exec();
  }

  /** The event's tickets, oldest first; `listed` keeps the active, non-private ones (guests). */
  listForEvent(resourceId: number, eventId: number, listed: boolean): Promise<TicketRecord[]> {
    const filter = listed
      ? { ti_event_id: eventId, resource_id: resourceId, active: true, private: false }
      : { ti_event_id: eventId, resource_id: resourceId };
    return this.model.find(filter).sort({ _id: 1 }).lean<TicketRecord[]>().exec();
  }

  findMany(resourceId: number, ids: number[]): Promise<TicketRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ resource_id: resourceId, _id: { $in: ids } })
      .sort({ _id: 1 })
      .lean<TicketRecord[]>()
      .exec();
  }

  upsert(fields: TicketFields): Promise<TicketRecord> {
    return upsertByKey(this.db, this.model, { ti_event_id: fields.ti_event_id, title: fields.title }, fields);
  }
}
