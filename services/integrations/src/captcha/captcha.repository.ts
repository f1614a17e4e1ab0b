import type { Connection, Model } from 'mongoose';
import { captchaModel, type CaptchaRecord } from './captcha.schema.js';

export type CaptchaChanges = Partial<Omit<CaptchaRecord, '_id' | 'updated_at'>>;

/** Storage of captcha settings, by resource ID (0 = global). Plain objects. */
export class CaptchaRepository {
  private readonly model: Model<CaptchaRecord>;

  constructor(db: Connection) {
    this.model = captchaModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number): Promise<CaptchaRecord | null> {
    return this.model.findById(resourceId).lean<CaptchaRecord>().exec();
  }

  /** Sets the given fields (last writer wins); creates the record when missing. */
  async save(resourceId: number, changes: CaptchaChanges): Promise<CaptchaRecord> {
    await this.model.updateOne({ _id: resourceId }, { $set: { ...changes, updated_at: new Date() } }, { upsert: true }).exec();
    return (await this.find(resourceId))!;
  }
}
