import { Schema, type Connection, type Model } from 'mongoose';
import type { RevocationReason } from '../support/revocation-command.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';

/**
 * A purchase key whose sponsorship was taken back (docs/adr/0234): written before anything goes,
 * so that no CreateSponsorship of the key makes one afterwards; keeps the sponsorship as it was.
 * `_id` is the purchase key.
 */
export interface SponsorshipRevocationRecord {
  _id: string;
  resource_id: number;
  reason: RevocationReason;
  sponsorship: SponsorshipRecord | null;
  created_at: Date;
}

const sponsorshipRevocationSchema = new Schema<SponsorshipRevocationRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    reason: { type: String, required: true },
    sponsorship: { type: Schema.Types.Mixed, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'sponsorship_revocations', versionKey: false, minimize: false },
);

export const sponsorshipRevocationModel = (db: Connection): Model<SponsorshipRevocationRecord> =>
  db.models['SponsorshipRevocation'] ?? db.model<SponsorshipRevocationRecord>('SponsorshipRevocation', sponsorshipRevocationSchema);
