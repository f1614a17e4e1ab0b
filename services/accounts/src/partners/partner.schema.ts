import { Schema, type Connection, type Model } from 'mongoose';

export interface PartnerRecord {
  _id: number;
  title: string;
  active: boolean;
  created_at: Date;
}

const partnerSchema = new Schema<PartnerRecord>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true },
    active: { type: Boolean, required: true, default: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'partners', versionKey: false },
);

export const partnerModel = (db: Connection): Model<PartnerRecord> =>
  db.models['Partner'] ?? db.model<PartnerRecord>('Partner', partnerSchema);
