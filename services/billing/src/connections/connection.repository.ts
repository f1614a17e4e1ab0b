import type { Connection, Model } from 'mongoose';
import { connectionModel, type ConnectedAccountRecord, type ConnectionRecord, type ProviderMode } from './connection.schema.js';
import type { SealedSecret } from '@masthead/core/secrets';

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

  /**
   * Last writer wins: one record per (resource, mode) by its `_id`. Only the key's fields are
   * set, so a rotated key keeps the client ID and the connected account.
   */
  async save(resourceId: number, mode: ProviderMode, secret: SealedSecret, last4: string): Promise<ConnectionRecord> {
    const _id = connectionId(resourceId, mode);
    await this.model
      .updateOne(
        { _id },
        { $set: { resource_id: resourceId, mode, secret_key: secret, secret_key_last4: last4, updated_at: new Date() } },
        { upsert: true },
      )
      .exec();
    return (await this.find(resourceId, mode))!;
  }

  /** Sets the connect client ID of an existing record; null when there is none. */
  async setClientId(resourceId: number, mode: ProviderMode, clientId: string): Promise<ConnectionRecord | null> {
    const _id = connectionId(resourceId, mode);
    const { matchedCount } = await this.model.updateOne({ _id }, { $set: { client_id: clientId, updated_at: new Date() } }).exec();
    return matchedCount === 1 ? this.find(resourceId, mode) : null;
  }

  /** Records the connected account (replacing an earlier one). */
  async setConnectedAccount(resourceId: number, mode: ProviderMode, account: ConnectedAccountRecord): Promise<void> {
    await this.model
      .updateOne({ _id: connectionId(resourceId, mode) }, { $set: { connected_account: account, updated_at: new Date() } })
      .exec();
  }

  /**
   * Forgets the connected account, only if it is still `accountId` (an exchange that recorded
   * another account meanwhile wins).
   */
  async clearConnectedAccount(resourceId: number, mode: ProviderMode, accountId: string): Promise<void> {
    await this.model
      .updateOne(
        { _id: connectionId(resourceId, mode), 'connected_account.account_id': accountId },
        { $unset: { connected_account: 1 }, $set: { updated_at: new Date() } },
      )
      .exec();
  }

  /**
   * Records with a value sealed by another key than `currentKeyId` (a rotation in progress): the
   * secret key, or a connected account's tokens.
   */
  listSealedWithOtherKeys(currentKeyId: string): Promise<ConnectionRecord[]> {
    return this.model
      .find({
        $or: [{ 'secret_key.key_id': { $ne: currentKeyId } }, { 'connected_account.tokens.key_id': { $exists: true, $ne: currentKeyId } }],
      })
      .lean<ConnectionRecord[]>()
      .exec();
  }

  /**
   * Replaces the sealed values only if the secret key is still the one read (a concurrent
   * SetSecretKey wins); the tokens only if the connected account is still the one read.
   */
  async reseal(record: ConnectionRecord, secret: SealedSecret, tokens?: SealedSecret): Promise<void> {
    await this.model
      .updateOne({ _id: record._id, 'secret_key.ciphertext': record.secret_key.ciphertext }, { $set: { secret_key: secret } })
      .exec();
    if (!tokens || !record.connected_account) return;
    await this.model
      .updateOne(
        { _id: record._id, 'connected_account.tokens.ciphertext': record.connected_account.tokens.ciphertext },
        { $set: { 'connected_account.tokens': tokens } },
      )
      .exec();
  }
}
