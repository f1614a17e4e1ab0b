import type { Connection, Model } from 'mongoose';
import { upsertByKey } from '../support/upsert-by-key.js';
import { tiEventModel, type TiEventRecord } from './ti-event.schema.js';

export type TiEventFields = Omit<TiEventRecord, '_id' | 'created_at' | 'updated_at'>;

/** Storage of ti_events. Every read names the resource; results are plain objects. */
export class TiEventRepository {
  private readonly model: Model<TiEventRecord>;

  constructor(private readonly db: Connection) {
    this.model = tiEventModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number, id: number): Promise<TiEventRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<TiEventRecord>().exec();
  }

  /** An event of any resource (operators name events by ID alone). */
  findAnywhere(id: number): Promise<TiEventRecord | null> {
    return this.model.findById(id).lean<TiEventRecord>().exec();
  }

  /** The resource's active events, oldest first. */
  listActive(resourceId: number): Promise<TiEventRecord[]> {
    return this.model.find({ resource_id: resourceId, active: true }).sort({ _id: 1 }).lean<TiEventRecord[]>().exec();
  }

  /** These events of the resource, oldest first (one `$in` query). */
  findMany(resourceId: number, ids: number[]): Promise<TiEventRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ resource_id: resourceId, _id: { $in: ids } })
      .sort({ _id: 1 })
      .lean<TiEventRecord[]>()
      .exec();
  }

  upsert(fields: TiEventFields): Promise<TiEventRecord> {
    return upsertByKey(this.db, this.model, { resource_id: fields.resource_id, title: fields.title }, fields);
  }
}
