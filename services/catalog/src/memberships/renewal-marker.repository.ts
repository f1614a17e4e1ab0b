import { insertIfAbsent } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/**
 * The record that one period of a membership was renewed (`membership_renewals`, `_id`
 * `<membership>:<renewed end date>`): of two replicas that both moved the end date (the same
 * value), exactly one inserts it and writes the history row and the event.
 */
interface RenewalMarker {
  _id: string;
  created_at: Date;
}

const markerSchema = new Schema<RenewalMarker>(
  { _id: { type: String, required: true }, created_at: { type: Date, required: true } },
  { collection: 'membership_renewals', versionKey: false },
);

export class RenewalMarkerRepository {
  private readonly model: Model<RenewalMarker>;

  constructor(db: Connection) {
    this.model = db.models['MembershipRenewal'] ?? db.model<RenewalMarker>('MembershipRenewal', markerSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** True for the one caller that records the renewal of `membershipId` from `from`. */
  record(membershipId: number, from: Date): Promise<boolean> {
    return insertIfAbsent(this.model.create({ _id: `${membershipId}:${from.toISOString()}`, created_at: new Date() }));
  }
}
