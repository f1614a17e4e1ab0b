import { insertIfAbsent, settleOnce } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { reservationModel, reservationOutcomeModel, type ReservationOutcomeRecord, type ReservationRecord } from './reservation.schema.js';

export type Outcome = ReservationOutcomeRecord['outcome'];

/** Storage of ticket reservations and their outcomes; results are plain objects. */
export class ReservationRepository {
  private readonly model: Model<ReservationRecord>;
  private readonly outcomes: Model<ReservationOutcomeRecord>;

  constructor(db: Connection) {
    this.model = reservationModel(db);
    this.outcomes = reservationOutcomeModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.model.createIndexes(), this.outcomes.createIndexes()]);
  }

  find(key: string): Promise<ReservationRecord | null> {
    return this.model.findById(key).lean<ReservationRecord>().exec();
  }

  /** False when the purchase key names a reservation already. */
  insertIfAbsent(reservation: ReservationRecord): Promise<boolean> {
    return insertIfAbsent(this.model.create(reservation));
  }

  async markHeld(key: string, units: number[]): Promise<void> {
    await this.model.updateOne({ _id: key }, { $set: { state: 'held', units } }).exec();
  }

  /** A reservation whose units could not all be claimed: the key may be tried again. */
  async delete(key: string): Promise<void> {
    await this.model.deleteOne({ _id: key }).exec();
  }

  async outcome(key: string): Promise<Outcome | null> {
    const row = await this.outcomes.findById(key).lean<ReservationOutcomeRecord>().exec();
    return row?.outcome ?? null;
  }

  /** Records how the reservation ends unless it ended already; answers the outcome that stands. */
  async settle(key: string, outcome: Outcome): Promise<Outcome> {
    return (await settleOnce(this.outcomes, { _id: key, outcome, created_at: new Date() }, 'outcome')).value;
  }
}
