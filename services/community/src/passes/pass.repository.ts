import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { passModel, type PassRecord } from './pass.schema.js';

export type NewPass = Omit<PassRecord, '_id' | 'created_at'>;

/** Storage of ti_event_ticket_passes. Every read names the resource; results are plain objects. */
export class PassRepository {
  private readonly model: Model<PassRecord>;

  constructor(private readonly db: Connection) {
    this.model = passModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Passes of the resource assigned to the user, oldest first. */
  listAssignedTo(resourceId: number, userId: number): Promise<PassRecord[]> {
    return this.model.find({ resource_id: resourceId, assign_id: userId }).sort({ _id: 1 }).lean<PassRecord[]>().exec();
  }

  insert(pass: NewPass): Promise<PassRecord> {
    return insertWithNextId(this.db, this.model, { ...pass, created_at: new Date() });
  }
}
