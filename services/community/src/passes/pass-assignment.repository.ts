import { claimSlot, insertIfAbsent, isStorableText } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { passAssignmentModel, passUnassignModel, type PassAssignmentRecord, type PassUnassignRecord } from './pass-assignment.schema.js';

export type NewPassAssignment = Omit<PassAssignmentRecord, 'created_at'>;

/** Storage of pass assignments and unassign claims; results are plain objects. */
export class PassAssignmentRepository {
  private readonly model: Model<PassAssignmentRecord>;
  private readonly unassigns: Model<PassUnassignRecord>;

  constructor(db: Connection) {
    this.model = passAssignmentModel(db);
    this.unassigns = passUnassignModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.model.createIndexes(), this.unassigns.createIndexes()]);
  }

  find(passId: number): Promise<PassAssignmentRecord | null> {
    return this.model.findById(passId).lean<PassAssignmentRecord>().exec();
  }

  async findByCode(resourceId: number, code: string): Promise<PassAssignmentRecord | null> {
    if (!isStorableText(code)) return null;
    return this.model.findOne({ resource_id: resourceId, code_key: code.toLowerCase() }).lean<PassAssignmentRecord>().exec();
  }

  /** False when the pass has an assignment or invitation already (the unique pass ID). */
  insertIfAbsent(assignment: NewPassAssignment): Promise<boolean> {
    return insertIfAbsent(this.model.create({ ...assignment, created_at: new Date() }));
  }

  /** The pending invitation gets its attendee; the caller reads it back to know it won. */
  async markAssigned(passId: number, codeKey: string, userId: number): Promise<void> {
    await this.model
      .updateOne(
        { _id: passId, code_key: codeKey, status: 'pending' },
        { $set: { status: 'assigned', user_id: userId, assigned_at: new Date() } },
      )
      .exec();
  }

  /** Deletes the assignment if it is still the one read (same code key and status). */
  async delete(assignment: PassAssignmentRecord): Promise<boolean> {
    const result = await this.model.deleteOne({ _id: assignment._id, code_key: assignment.code_key, status: assignment.status }).exec();
    return result.deletedCount > 0;
  }

  countUnassigns(passId: number): Promise<number> {
    return this.unassigns.countDocuments({ pass_id: passId }).exec();
  }

  /** Claims one use of the pass's unassign limit (a unique insert); false when all are used. */
  async claimUnassign(passId: number, limit: number, userId: number | null): Promise<{ claimId: string } | null> {
    if (limit <= 0) return null;
    const from = await this.countUnassigns(passId);
    const n = await claimSlot(
      (slot) => this.unassigns.create({ _id: `${passId}:${slot}`, pass_id: passId, n: slot, user_id: userId, created_at: new Date() }),
      from,
      limit,
    );
    return n === null ? null : { claimId: `${passId}:${n}` };
  }

  /** Gives a claimed use back (the assignment was gone by the time it was to be deleted). */
  async releaseUnassign(claimId: string): Promise<void> {
    await this.unassigns.deleteOne({ _id: claimId }).exec();
  }
}
