import type { Connection, Model } from 'mongoose';
import type { SealedSecret } from '@masthead/core/secrets';
import { providerConfigId, providerConfigModel, type ProviderConfigRecord, type ProviderName } from './provider-config.schema.js';

/** Storage of provider configurations; every read names the resource. Plain objects. */
export class ProviderConfigRepository {
  private readonly model: Model<ProviderConfigRecord>;

  constructor(db: Connection) {
    this.model = providerConfigModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number, provider: ProviderName): Promise<ProviderConfigRecord | null> {
    return this.model.findById(providerConfigId(resourceId, provider)).lean<ProviderConfigRecord>().exec();
  }

  /** Sets the secret (last writer wins); settings stay. */
  setSecret(resourceId: number, provider: ProviderName, secret: SealedSecret, last4: string): Promise<ProviderConfigRecord> {
    return this.upsert(resourceId, provider, { secret, secret_last4: last4 });
  }

  /** Replaces the settings (last writer wins); the secret stays. */
  setSettings(resourceId: number, provider: ProviderName, settings: Record<string, unknown>): Promise<ProviderConfigRecord> {
    return this.upsert(resourceId, provider, { settings });
  }

  /**
   * Replaces the sealed secret only if it is still the one read (a concurrent operator write or
   * token refresh wins). True when this write went in.
   */
  async replaceSecret(record: ProviderConfigRecord, secret: SealedSecret, last4: string): Promise<boolean> {
    if (!record.secret) return false;
    const { matchedCount } = await this.model
      .updateOne(
        { _id: record._id, 'secret.ciphertext': record.secret.ciphertext },
        { $set: { secret, secret_last4: last4, updated_at: new Date() } },
      )
      .exec();
    return matchedCount === 1;
  }

  /** Records whose secret another key than `currentKeyId` sealed (a rotation in progress). */
  listSealedWithOtherKeys(currentKeyId: string): Promise<ProviderConfigRecord[]> {
    return this.model
      .find({ 'secret.key_id': { $exists: true, $ne: currentKeyId } })
      .lean<ProviderConfigRecord[]>()
      .exec();
  }

  private async upsert(resourceId: number, provider: ProviderName, fields: Partial<ProviderConfigRecord>): Promise<ProviderConfigRecord> {
    const _id = providerConfigId(resourceId, provider);
    await this.model
      .updateOne(
        { _id },
        { $set: { ...fields, updated_at: new Date() }, $setOnInsert: { resource_id: resourceId, provider } },
        { upsert: true },
      )
      .exec();
    return (await this.find(resourceId, provider))!;
  }
}
