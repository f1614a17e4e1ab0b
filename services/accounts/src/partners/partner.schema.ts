import { Schema, type Connection, type Model } from 'mongoose';

export interface PartnerRecord {
  _id: number;
  title: string;
  active: boolean;
  /** Settings its resources inherit where their own do not set a key (docs/adr/0170). */
  settings: Record<string, unknown>;
  created_at: Date;
}

const partnerSchema = new Schema<PartnerRecord>(
  {
    _id: { type: Number, required: true },
    title: { type: String, required: true },
    active: { type: Boolean, required: true, default: true },
    settings: { type: Schema.Types.Mixed, default: {} },
    created_at: { type: Date, required: true },
  },
  { collection: 'partners', versionKey: false, minimize: false },
);

export const partnerModel = (db: Connection): Model<PartnerRecord> =>
  db.models['Partner'] ?? db.model<PartnerRecord>('Partner', partnerSchema);
