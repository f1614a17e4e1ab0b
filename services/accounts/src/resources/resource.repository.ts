import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { resourceModel, type ResourceRecord } from './resource.schema.js';

export type NewResource = Omit<ResourceRecord, '_id' | 'created_at' | 'updated_at'>;

/** Storage of resources; returns plain objects, never mongoose documents. */
export class ResourceRepository {
  private readonly model: Model<ResourceRecord>;

  constructor(private readonly db: Connection) {
    this.model = resourceModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  findById(id: number): Promise<ResourceRecord | null> {
    return this.model.findById(id).lean<ResourceRecord>().exec();
  }

  findByPublicKey(publicKey: string): Promise<ResourceRecord | null> {
    return this.model.findOne({ public_key: publicKey }).lean<ResourceRecord>().exec();
  }

  /** The partner's active resources, by ID ascending. */
  listActiveOfPartner(partnerId: number): Promise<ResourceRecord[]> {
    return this.model.find({ partner_id: partnerId, active: true }).sort({ _id: 1 }).lean<ResourceRecord[]>().exec();
  }

  async insert(resource: NewResource): Promise<ResourceRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...resource, created_at: now, updated_at: now });
  }

  async update(id: number, changes: Partial<NewResource>): Promise<ResourceRecord | null> {
    return this.model
      .findByIdAndUpdate(id, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<ResourceRecord>()
      .exec();
  }

  async allowedOrigins(): Promise<string[]> {
    const rows = await this.model.find({ active: true }, { allowed_origins: 1, origin: 1 }).lean<ResourceRecord[]>().exec();
    const origins = new Set<string>();
    for (const row of rows) {
      if (row.origin) origins.add(row.origin);
      for (const origin of row.allowed_origins ?? []) origins.add(origin);
    }
    return [...origins];
  }
}
