import { Schema, type Connection, type Model } from 'mongoose';

/** A slot of a sponsorship: an activation code and its seats (docs/adr/0155). */
export interface SlotRecord {
  _id: number;
  sponsorship_id: number;
  resource_id: number;
  sponsor_id: number;
  /** `<sponsorship>:<n>`: a repeated creation adds no slot. */
  slot_key: string;
  code: string;
  /** The lowercased code: activation finds it case-insensitively within the resource. */
  code_key: string;
  /** Invited recipients (lowercased): the bound one of a single-seat slot, any of a multi-seat one. */
  recipient_emails: string[];
  seats: number;
  created_at: Date;
  updated_at: Date;
}

const slotSchema = new Schema<SlotRecord>(
  {
    _id: { type: Number, required: true },
    sponsorship_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    sponsor_id: { type: Number, required: true },
    slot_key: { type: String, required: true },
    code: { type: String, required: true },
    code_key: { type: String, required: true },
    recipient_emails: { type: [String], default: [] },
    seats: { type: Number, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'sponsorship_slots', versionKey: false },
);
// One slot per position of a sponsorship, also under retried creations.
slotSchema.index({ slot_key: 1 }, { unique: true });
// Serves the recipient's preview and activation: the code within the resource.
slotSchema.index({ resource_id: 1, code_key: 1 }, { unique: true });
// Serves the sponsorship's slot lists.
slotSchema.index({ sponsorship_id: 1 });
// Serves the recipient's email-matched list.
slotSchema.index({ resource_id: 1, recipient_emails: 1 });

export const slotModel = (db: Connection): Model<SlotRecord> =>
  db.models['SponsorshipSlot'] ?? db.model<SlotRecord>('SponsorshipSlot', slotSchema);

/** A recipient's seat on a slot: the insert of `<slot>:<seat>` is the claim. */
export interface SlotActivationRecord {
  _id: string;
  slot_id: number;
  sponsorship_id: number;
  resource_id: number;
  seat: number;
  user_id: number;
  /**
   * This claim of the seat (a seat is claimed again once given back): keys its outcome, so the
   * grant and the claim succeed or fail together (docs/adr/0233). Absent on rows granted before.
   */
  claim_id?: string;
  /** The granted membership; null while the grant is pending (finished by a retry or the pending-grant pass). */
  membership_id: number | null;
  /** The recipient's own payer flag: off once they turned the sponsor's payment off. */
  is_paying_by_sponsor: boolean;
  /** Whether the membership may move to its Pricing's next one at renewal (document 2 E). */
  is_allowed_next_subscription: boolean;
  created_at: Date;
  updated_at: Date;
}

const slotActivationSchema = new Schema<SlotActivationRecord>(
  {
    _id: { type: String, required: true },
    slot_id: { type: Number, required: true },
    sponsorship_id: { type: Number, required: true },
    resource_id: { type: Number, required: true },
    seat: { type: Number, required: true },
    user_id: { type: Number, required: true },
    claim_id: { type: String },
    membership_id: { type: Number, default: null },
    is_paying_by_sponsor: { type: Boolean, required: true },
    is_allowed_next_subscription: { type: Boolean, required: true },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'sponsorship_slot_activations', versionKey: false },
);
// One seat per recipient and slot.
slotActivationSchema.index({ slot_id: 1, user_id: 1 }, { unique: true });
// Serves a sponsorship's activations (its first associated membership, seat counts).
slotActivationSchema.index({ sponsorship_id: 1 });
// Serves a member's seats in a resource (the recipient's list, an invite activation's replacement).
slotActivationSchema.index({ user_id: 1, resource_id: 1 });
// Serves billing's renewal question (the sponsorship of a membership) and the pending-grant pass (null).
slotActivationSchema.index({ membership_id: 1 });

export const slotActivationModel = (db: Connection): Model<SlotActivationRecord> =>
  db.models['SponsorshipSlotActivation'] ?? db.model<SlotActivationRecord>('SponsorshipSlotActivation', slotActivationSchema);
