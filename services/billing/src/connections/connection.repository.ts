import type { Connection, Model } from 'mongoose';
import { connectionModel, type ConnectionRecord, type ProviderMode } from './connection.schema.js';
import type { SealedSecret } from './secret-box.js';

const connectionId = (resourceId: number, mode: ProviderMode) => `${resourceId}:${mode}`;

/** Storage of card-provider connections; every read names the resource. Plain objects. */
export class ConnectionRepository {
  private readonly model: Model<ConnectionRecord>;

  constructor(db: Connection) {
    this.model = connectionModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number, mode: ProviderMode): Promise<ConnectionRecord | null> {
    return this.model.findById(connectionId(resourceId, mode)).lean<ConnectionRecord>().exec();
  }

  /** Last writer wins: one record per (resource, mode) by its `_id`. */
  async save(resourceId: number, mode: ProviderMode, secret: SealedSecret, last4: string): Promise<ConnectionRecord> {
    const record: ConnectionRecord = {
      _id: connectionId(resourceId, mode),
      resource_id: resourceId,
      mode,
      secret_key: secret,
      secret_key_last4: last4,
      updated_at: new Date(),
    };
    await this.model.replaceOne({ _id: record._id }, record, { upsert: true }).exec();
    return record;
  }

  /** Records sealed with another key than `currentKeyId` (a rotation in progress). */
  listSealedWithOtherKeys(currentKeyId: string): Promise<ConnectionRecord[]> {
    return this.model
      .find({ 'secret_key.key_id': { $ne: currentKeyId } })
      .lean<ConnectionRecord[]>()
      .exec();
  }

  /** Replaces the sealed value only if it is still the one read (a concurrent SetSecretKey wins). */
  async reseal(record: ConnectionRecord, secret: SealedSecret): Promise<void> {
    await this.model
      .updateOne({ _id: record._id, 'secret_key.ciphertext': record.secret_key.ciphertext }, { $set: { secret_key: secret } })
      .exec();
  }
}
