import { claimSlot, insertWithNextId, isDuplicateKey, isStorableText } from '@masthead/core/mongo';
import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { slotActivationModel, slotModel, type SlotActivationRecord, type SlotRecord } from './slot.schema.js';

export type NewSlot = Omit<SlotRecord, '_id' | 'created_at' | 'updated_at'>;
export type NewSlotActivation = Omit<SlotActivationRecord, '_id' | 'seat' | 'claim_id' | 'created_at' | 'updated_at'>;

/** What claiming a seat ended with: the new row, a full slot, or the recipient's seat that exists. */
export type SlotSeatClaim = { row: SlotActivationRecord } | { full: true } | { existing: SlotActivationRecord };

class ExistingActivation extends Error {
  constructor(readonly row: SlotActivationRecord) {
    super('the recipient holds a seat of the slot');
  }
}

/** One claim of a seat: its row while it holds that claim (rows granted before claims had IDs: the row). */
const claimFilter = ({ _id, claim_id }: Pick<SlotActivationRecord, '_id' | 'claim_id'>) => (claim_id ? { _id, claim_id } : { _id });

/** Storage of sponsorship slots and their activations. Every read names the resource. */
export class SlotRepository {
  private readonly model: Model<SlotRecord>;
  private readonly activations: Model<SlotActivationRecord>;

  constructor(private readonly db: Connection) {
    this.model = slotModel(db);
    this.activations = slotActivationModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.model.createIndexes(), this.activations.createIndexes()]);
  }

  find(resourceId: number, id: number): Promise<SlotRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<SlotRecord>().exec();
  }

  async findByCode(resourceId: number, code: string): Promise<SlotRecord | null> {
    if (!isStorableText(code)) return null;
    return this.model.findOne({ resource_id: resourceId, code_key: code.toLowerCase() }).lean<SlotRecord>().exec();
  }

  /** The slots of these sponsorships, newest first (one `$in` query). */
  listForSponsorships(ids: number[]): Promise<SlotRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ sponsorship_id: { $in: ids } })
      .sort({ created_at: -1, _id: -1 })
      .lean<SlotRecord[]>()
      .exec();
  }

  /** Slots of the resource the email was invited to, newest first. */
  listForEmail(resourceId: number, email: string): Promise<SlotRecord[]> {
    return this.model
      .find({ resource_id: resourceId, recipient_emails: email })
      .sort({ created_at: -1, _id: -1 })
      .lean<SlotRecord[]>()
      .exec();
  }

  /** Inserts the slot unless its `slot_key` exists (a retried creation); true when it went in. */
  async insertIfAbsent(slot: NewSlot): Promise<boolean> {
    const now = new Date();
    try {
      await insertWithNextId(this.db, this.model, { ...slot, created_at: now, updated_at: now });
      return true;
    } catch (error) {
      if (isDuplicateKey(error) && (await this.model.exists({ slot_key: slot.slot_key }))) return false;
      throw error;
    }
  }

  update(id: number, changes: Partial<Pick<SlotRecord, 'recipient_emails' | 'code' | 'code_key'>>): Promise<SlotRecord | null> {
    return this.model
      .findByIdAndUpdate(id, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<SlotRecord>()
      .exec();
  }

  /* ---- Activations ---- */

  /** Activations of these sponsorships, oldest first (the first is the first associated membership's). */
  activationsOfSponsorships(ids: number[]): Promise<SlotActivationRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.activations
      .find({ sponsorship_id: { $in: ids } })
      .sort({ created_at: 1, _id: 1 })
      .lean<SlotActivationRecord[]>()
      .exec();
  }

  activation(slotId: number, userId: number): Promise<SlotActivationRecord | null> {
    return this.activations.findOne({ slot_id: slotId, user_id: userId }).lean<SlotActivationRecord>().exec();
  }

  activationsOfUser(resourceId: number, userId: number): Promise<SlotActivationRecord[]> {
    return this.activations.find({ resource_id: resourceId, user_id: userId }).lean<SlotActivationRecord[]>().exec();
  }

  activationOfMembership(resourceId: number, membershipId: number): Promise<SlotActivationRecord | null> {
    return this.activations.findOne({ resource_id: resourceId, membership_id: membershipId }).lean<SlotActivationRecord>().exec();
  }

  /** Claims a free seat below `seats` for the recipient (a unique insert per seat, ADR 0002). */
  async claimSeat(activation: NewSlotActivation, seats: number): Promise<SlotSeatClaim> {
    const from = await this.activations.countDocuments({ slot_id: activation.slot_id }).exec();
    const now = new Date();
    const claimId = randomUUID();
    const rowOn = (seat: number): SlotActivationRecord => ({
      ...activation,
      _id: `${activation.slot_id}:${seat}`,
      seat,
      claim_id: claimId,
      created_at: now,
      updated_at: now,
    });
    try {
      const seat = await claimSlot((n) => this.insertOnSeat(rowOn(n)), from, seats);
      return seat === null ? { full: true } : { row: rowOn(seat) };
    } catch (error) {
      if (error instanceof ExistingActivation) return { existing: error.row };
      throw error;
    }
  }

  /** One seat probe: a refusal is read back to tell a taken seat from the recipient's existing one. */
  private async insertOnSeat(row: SlotActivationRecord): Promise<void> {
    try {
      await this.activations.create(row);
    } catch (error) {
      if (!isDuplicateKey(error) || (await this.activations.exists({ _id: row._id }))) throw error;
      const existing = await this.activation(row.slot_id, row.user_id);
      if (existing) throw new ExistingActivation(existing);
      throw error;
    }
  }

  async updateActivation(
    id: string,
    changes: Partial<Pick<SlotActivationRecord, 'membership_id' | 'is_paying_by_sponsor' | 'is_allowed_next_subscription'>>,
  ): Promise<void> {
    await this.activations.updateOne({ _id: id }, { $set: { ...changes, updated_at: new Date() } }).exec();
  }

  /** Frees a seat (a shared seat cleared by a replacement). */
  async deleteActivation(id: string): Promise<void> {
    await this.activations.deleteOne({ _id: id }).exec();
  }

  /** The seat's membership, on this claim of the seat (not a later one, after a clear). */
  async markGranted(activation: Pick<SlotActivationRecord, '_id' | 'claim_id'>, membershipId: number): Promise<void> {
    await this.activations.updateOne(claimFilter(activation), { $set: { membership_id: membershipId, updated_at: new Date() } }).exec();
  }

  /** Frees the seat this claim took (its grant was refused for good), not a later claim of the seat. */
  async deleteClaim(activation: Pick<SlotActivationRecord, '_id' | 'claim_id'>): Promise<void> {
    await this.activations.deleteOne(claimFilter(activation)).exec();
  }

  /** Seats whose grant is pending, claimed before `before`, oldest first (the pending-grant pass). */
  pendingActivations(before: Date, limit: number): Promise<SlotActivationRecord[]> {
    return this.activations
      .find({ membership_id: null, created_at: { $lt: before } })
      .sort({ created_at: 1 })
      .limit(limit)
      .lean<SlotActivationRecord[]>()
      .exec();
  }

  /** Frees every seat of the slot (the slot is cleared). */
  async deleteActivationsOfSlot(slotId: number): Promise<void> {
    await this.activations.deleteMany({ slot_id: slotId }).exec();
  }

  /** The sponsorship was revoked (docs/adr/0234): its slots and their seats go. */
  async deleteOfSponsorship(sponsorshipId: number): Promise<void> {
    await this.activations.deleteMany({ sponsorship_id: sponsorshipId }).exec();
    await this.model.deleteMany({ sponsorship_id: sponsorshipId }).exec();
  }
}
