import { Schema, type Connection, type Model } from 'mongoose';

/** One claimed unit of a ticket's quantity: the insert of `<ticket>:<unit>` is the claim. */
export interface TicketUnitRecord {
  _id: string;
  ticket_id: number;
  unit: number;
  /** The purchase key of the reservation that holds it. */
  reservation_key: string;
  /** When the unconfirmed hold lapses; null once the reservation is confirmed. */
  expires_at: Date | null;
  created_at: Date;
}

const ticketUnitSchema = new Schema<TicketUnitRecord>(
  {
    _id: { type: String, required: true },
    ticket_id: { type: Number, required: true },
    unit: { type: Number, required: true },
    reservation_key: { type: String, required: true },
    expires_at: { type: Date, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'ticket_units', versionKey: false },
);
// Serves the count of a ticket's units (what is left) and the search for expired holds.
ticketUnitSchema.index({ ticket_id: 1, expires_at: 1 });
// Serves confirming and releasing one reservation's units.
ticketUnitSchema.index({ reservation_key: 1 });

export const ticketUnitModel = (db: Connection): Model<TicketUnitRecord> =>
  db.models['TicketUnit'] ?? db.model<TicketUnitRecord>('TicketUnit', ticketUnitSchema);
