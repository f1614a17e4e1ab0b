import { Schema, type Connection, type Model } from 'mongoose';

/** A ticket definition of an event: what a pass is bought under (document 2 F). */
export interface TicketRecord {
  _id: number;
  resource_id: number;
  ti_event_id: number;
  /** The operator's key within the event (UpsertTicket). */
  title: string;
  description: string | null;
  /** Units for sale; never oversold (ticket-sales/). */
  quantity: number;
  /** Minor units of `currency`. */
  price: number;
  currency: string;
  active: boolean;
  /** Not listed to guests; sold where the publisher names the ticket. */
  private: boolean;
  /** How many times an owner may take a pass back from its attendee (docs/adr/0152). */
  unassign_limit: number;
  created_at: Date;
  updated_at: Date;
}

const ticketSchema = new Schema<TicketRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    ti_event_id: { type: Number, required: true },
    title: { type: String, required: true },
    description: { type: String, default: null },
    quantity: { type: Number, required: true },
    price: { type: Number, required: true },
    currency: { type: String, required: true },
    active: { type: Boolean, required: true },
    private: { type: Boolean, required: true },
    unassign_limit: { type: Number, required: true, default: 1 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'ti_event_tickets', versionKey: false },
);
// Serves UpsertTicket's key and GET /ti-event/{id}/tickets (an event's tickets).
ticketSchema.index({ ti_event_id: 1, title: 1 }, { unique: true });

export const ticketModel = (db: Connection): Model<TicketRecord> =>
  db.models['TiEventTicket'] ?? db.model<TicketRecord>('TiEventTicket', ticketSchema);
