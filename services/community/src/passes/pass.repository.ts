import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { passModel, type PassRecord } from './pass.schema.js';

export type NewPass = Omit<PassRecord, '_id' | 'created_at' | 'updated_at'>;

/** Storage of ti_event_ticket_passes. Every read names the resource; results are plain objects. */
export class PassRepository {
  private readonly model: Model<PassRecord>;

  constructor(private readonly db: Connection) {
    this.model = passModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number, id: number): Promise<PassRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<PassRecord>().exec();
  }

  /** Passes of the resource assigned to the user, oldest first (optionally of one event). */
  listAssignedTo(resourceId: number, userId: number, eventId?: number): Promise<PassRecord[]> {
    const filter =
      eventId === undefined
        ? { resource_id: resourceId, assign_id: userId }
        : { resource_id: resourceId, assign_id: userId, ti_event_id: eventId };
    return this.model.find(filter).sort({ _id: 1 }).lean<PassRecord[]>().exec();
  }

  /** Passes of the resource the user owns, oldest first. */
  listOwnedBy(resourceId: number, userId: number): Promise<PassRecord[]> {
    return this.model.find({ resource_id: resourceId, owner_id: userId }).sort({ _id: 1 }).lean<PassRecord[]>().exec();
  }

  /** Passes of the resource the user owns or attends, oldest first. */
  listOwnedOrAssigned(resourceId: number, userId: number): Promise<PassRecord[]> {
    return this.model
      .find({ resource_id: resourceId, $or: [{ owner_id: userId }, { assign_id: userId }] })
      .sort({ _id: 1 })
      .lean<PassRecord[]>()
      .exec();
  }

  /** A page of the event's passes, oldest first, and the total. */
  async pageForEvent(resourceId: number, eventId: number, skip: number, limit: number): Promise<{ rows: PassRecord[]; total: number }> {
    const filter = { ti_event_id: eventId, resource_id: resourceId };
    const [rows, total] = await Promise.all([
      this.model.find(filter).sort({ _id: 1 }).skip(skip).limit(limit).lean<PassRecord[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { rows, total };
  }

  listForPurchase(purchaseKey: string): Promise<PassRecord[]> {
    return this.model.find({ purchase_key: purchaseKey }).sort({ _id: 1 }).lean<PassRecord[]>().exec();
  }

  insert(pass: NewPass): Promise<PassRecord> {
    return insertWithNextId(this.db, this.model, { ...pass, created_at: new Date() });
  }

  /** Inserts the pass unless its `pass_key` was issued already; true when it went in. */
  async issue(pass: NewPass): Promise<boolean> {
    try {
      await this.insert(pass);
      return true;
    } catch (error) {
      // insertWithNextId rethrows a duplicate that is not an ID clash: the pass key was taken.
      if (isDuplicateKey(error)) return false;
      throw error;
    }
  }

  /** A pass taken back (its purchase refunded or disputed, docs/adr/0234); kept in ti_event_pass_revocations. */
  async delete(resourceId: number, id: number): Promise<void> {
    await this.model.deleteOne({ _id: id, resource_id: resourceId }).exec();
  }

  update(resourceId: number, id: number, changes: Partial<Pick<PassRecord, 'assign_id' | 'extra'>>): Promise<PassRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, resource_id: resourceId }, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<PassRecord>()
      .exec();
  }
}
