import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { listModel, stateCacheModel, type ListRecord, type ListStateCacheRecord } from './list.schema.js';

export type ListFields = Omit<ListRecord, '_id' | 'resource_id' | 'created_at' | 'updated_at'>;

/** Storage of a resource's lists; every read names the resource. Plain objects. */
export class ListRepository {
  private readonly model: Model<ListRecord>;

  constructor(private readonly db: Connection) {
    this.model = listModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Every list of the resource, by list_name (then ID, for equal names). */
  async listAll(resourceId: number): Promise<ListRecord[]> {
    const rows = await this.model.find({ resource_id: resourceId }).lean<ListRecord[]>().exec();
    return rows.sort((a, b) => a.list_name.localeCompare(b.list_name) || a._id - b._id);
  }

  /** Creates or updates the resource's list with this provider list ID. */
  async upsert(resourceId: number, fields: ListFields): Promise<ListRecord> {
    const filter = { resource_id: resourceId, list_id: fields.list_id };
    const updated = await this.model
      .findOneAndUpdate(filter, { $set: { ...fields, updated_at: new Date() } }, { new: true })
      .lean<ListRecord>()
      .exec();
    if (updated) return updated;
    const now = new Date();
    try {
      return await insertWithNextId(this.db, this.model, { ...fields, resource_id: resourceId, created_at: now, updated_at: now });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      // A concurrent upsert created it: this write wins as an update.
      return (await this.model
        .findOneAndUpdate(filter, { $set: { ...fields, updated_at: now } }, { new: true })
        .lean<ListRecord>()
        .exec())!;
    }
  }

  /** Removes the list; the removed row, or null when the resource has none with this ID. */
  remove(resourceId: number, listId: string): Promise<ListRecord | null> {
    return this.model.findOneAndDelete({ resource_id: resourceId, list_id: listId }).lean<ListRecord>().exec();
  }
}

/** The email-key state cache (document 2 H: 600 seconds). */
export class ListStateCache {
  private readonly model: Model<ListStateCacheRecord>;

  constructor(
    db: Connection,
    private readonly ttlMs: number,
  ) {
    this.model = stateCacheModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Replaces what is cached for the email with the states just read. */
  async write(resourceId: number, email: string, states: Array<{ list_id: string; state: string }>): Promise<void> {
    await this.model
      .updateOne(
        { _id: cacheKey(resourceId, email) },
        { $set: { resource_id: resourceId, states, expires_at: new Date(Date.now() + this.ttlMs) } },
        { upsert: true },
      )
      .exec();
  }

  /** The unexpired entry of the email, or null. */
  async read(resourceId: number, email: string): Promise<ListStateCacheRecord | null> {
    const row = await this.model.findById(cacheKey(resourceId, email)).lean<ListStateCacheRecord>().exec();
    return row && row.expires_at.getTime() > Date.now() ? row : null;
  }
}

const cacheKey = (resourceId: number, email: string) => `${resourceId}:${email.trim().toLowerCase()}`;
