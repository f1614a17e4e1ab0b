import type { Connection, Model } from 'mongoose';
import { passTokenModel, type PassTokenRecord } from './pass-token.schema.js';

/** Storage of pass authorization tokens (hashes only); results are plain objects. */
export class PassTokenRepository {
  private readonly model: Model<PassTokenRecord>;

  constructor(db: Connection) {
    this.model = passTokenModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  findByHash(hash: string): Promise<PassTokenRecord | null> {
    return this.model.findById(hash).lean<PassTokenRecord>().exec();
  }

  async insert(token: PassTokenRecord): Promise<void> {
    await this.model.create(token);
  }

  /** Every token of the pass stops working (its assignment ended or was replaced). */
  async revokeForPass(passId: number): Promise<void> {
    await this.model.deleteMany({ pass_id: passId }).exec();
  }
}
