import { Schema, type Connection, type Model } from 'mongoose';

/** A purchase line's hold on ticket units while its payment runs (docs/adr/0151). */
export interface ReservationRecord {
  /** The purchase key billing gives: a retry of the same purchase names the same reservation. */
  _id: string;
  resource_id: number;
  ticket_id: number;
  ti_event_id: number;
  /** The buyer, owner of the passes. */
  user_id: number;
  quantity: number;
  unit_price: number;
  currency: string;
  /** The claimed unit numbers, filled once every unit is claimed. */
  units: number[];
  /** `claiming` while its units are being claimed, `held` once they all are. */
  state: 'claiming' | 'held';
  expires_at: Date;
  created_at: Date;
}

/** How a reservation ended; the unique `_id` (the purchase key) lets only one ending win. */
export interface ReservationOutcomeRecord {
  _id: string;
  outcome: 'confirmed' | 'released';
  created_at: Date;
}

const reservationSchema = new Schema<ReservationRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    ticket_id: { type: Number, required: true },
    ti_event_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    quantity: { type: Number, required: true },
    unit_price: { type: Number, required: true },
    currency: { type: String, required: true },
    units: { type: [Number], default: [] },
    state: { type: String, required: true },
    expires_at: { type: Date, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'ticket_reservations', versionKey: false },
);

const outcomeSchema = new Schema<ReservationOutcomeRecord>(
  {
    _id: { type: String, required: true },
    outcome: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'ticket_reservation_outcomes', versionKey: false },
);

export const reservationModel = (db: Connection): Model<ReservationRecord> =>
  db.models['TicketReservation'] ?? db.model<ReservationRecord>('TicketReservation', reservationSchema);

export const reservationOutcomeModel = (db: Connection): Model<ReservationOutcomeRecord> =>
  db.models['TicketReservationOutcome'] ?? db.model<ReservationOutcomeRecord>('TicketReservationOutcome', outcomeSchema);
