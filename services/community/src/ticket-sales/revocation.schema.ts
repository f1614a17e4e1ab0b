import { Schema, type Connection, type Model } from 'mongoose';
import type { PassRecord } from '../passes/pass.schema.js';
import type { RevocationReason } from '../support/revocation-command.js';

/**
 * A purchase key whose passes were taken back (docs/adr/0234): written before any pass goes, so
 * that no confirmation of the key issues passes afterwards. `_id` is the purchase key.
 */
export interface PurchaseRevocationRecord {
  _id: string;
  resource_id: number;
  reason: RevocationReason;
  created_at: Date;
}

/** A pass taken back, kept as it was; the unique `_id` (the pass ID) lets one revocation announce it. */
export interface PassRevocationRecord {
  _id: number;
  resource_id: number;
  purchase_key: string | null;
  reason: RevocationReason;
  pass: PassRecord;
  created_at: Date;
}

const purchaseRevocationSchema = new Schema<PurchaseRevocationRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    reason: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'ti_event_purchase_revocations', versionKey: false },
);

const passRevocationSchema = new Schema<PassRevocationRecord>(
  {
    _id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    purchase_key: { type: String, default: null },
    reason: { type: String, required: true },
    pass: { type: Schema.Types.Mixed, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'ti_event_pass_revocations', versionKey: false, minimize: false },
);

export const purchaseRevocationModel = (db: Connection): Model<PurchaseRevocationRecord> =>
  db.models['TicketPurchaseRevocation'] ?? db.model<PurchaseRevocationRecord>('TicketPurchaseRevocation', purchaseRevocationSchema);

export const passRevocationModel = (db: Connection): Model<PassRevocationRecord> =>
  db.models['PassRevocation'] ?? db.model<PassRevocationRecord>('PassRevocation', passRevocationSchema);
