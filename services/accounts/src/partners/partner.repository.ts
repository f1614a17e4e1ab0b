import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { partnerModel, type PartnerRecord } from './partner.schema.js';

export class PartnerRepository {
  private readonly model: Model<PartnerRecord>;

  constructor(private readonly db: Connection) {
    this.model = partnerModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  findById(id: number): Promise<PartnerRecord | null> {
    return this.model.findById(id).lean<PartnerRecord>().exec();
  }

  findByTitle(title: string): Promise<PartnerRecord | null> {
    return this.model.findOne({ title }).lean<PartnerRecord>().exec();
  }

  create(title: string): Promise<PartnerRecord> {
    return insertWithNextId(this.db, this.model, { title, active: true, settings: {}, created_at: new Date() });
  }

  /** Replaces the partner's settings (last writer wins); null when there is no such partner. */
  setSettings(id: number, settings: Record<string, unknown>): Promise<PartnerRecord | null> {
    return this.model.findByIdAndUpdate(id, { $set: { settings } }, { new: true }).lean<PartnerRecord>().exec();
  }
}
