import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { templateModel, type TemplateRecord } from './template.schema.js';

export type TemplateFields = Omit<TemplateRecord, '_id' | 'resource_id' | 'name' | 'version' | 'created_at' | 'updated_at'>;

/** Storage of templates; every read names the resource. Plain objects. */
export class TemplateRepository {
  private readonly model: Model<TemplateRecord>;

  constructor(private readonly db: Connection) {
    this.model = templateModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Every version of a name in the resource (a handful), newest first. */
  versionsOf(resourceId: number, name: string): Promise<TemplateRecord[]> {
    return this.model.find({ resource_id: resourceId, name }).sort({ _id: -1 }).lean<TemplateRecord[]>().exec();
  }

  listOfResource(resourceId: number): Promise<TemplateRecord[]> {
    return this.model.find({ resource_id: resourceId }).sort({ name: 1, version: 1 }).lean<TemplateRecord[]>().exec();
  }

  /** Creates (resource, name, version) or replaces its fields; a racing create is retried as an update. */
  async upsert(resourceId: number, name: string, version: string, fields: TemplateFields): Promise<TemplateRecord> {
    const key = { resource_id: resourceId, name, version };
    for (let attempt = 0; ; attempt++) {
      const updated = await this.model
        .findOneAndUpdate(key, { $set: { ...fields, updated_at: new Date() } }, { new: true })
        .lean<TemplateRecord>()
        .exec();
      if (updated) return updated;
      try {
        const now = new Date();
        return await insertWithNextId(this.db, this.model, { ...key, ...fields, created_at: now, updated_at: now });
      } catch (error) {
        if (!isDuplicateKey(error) || attempt > 0) throw error;
      }
    }
  }
}
