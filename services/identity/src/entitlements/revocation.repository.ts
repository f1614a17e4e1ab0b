import { isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { revocationModel, type RevocationRecord } from './revocation.schema.js';

/** Storage of revocation entries; every read names the resource. Plain objects. */
export class RevocationRepository {
  private readonly model: Model<RevocationRecord>;

  constructor(db: Connection) {
    this.model = revocationModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /**
   * Records an entry, keeping the later stamp and expiry of two (replicas record the same catalog
   * event alike). Two first writes of one entry race on the insert: the loser updates.
   */
  async record(entry: RevocationRecord): Promise<void> {
    const { _id, stale_through: staleThrough, expires_at: expiresAt, ...identity } = entry;
    const write = () =>
      this.model
        .updateOne({ _id }, { $max: { stale_through: staleThrough, expires_at: expiresAt }, $setOnInsert: identity }, { upsert: true })
        .exec();
    try {
      await write();
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      await write();
    }
  }

  /** The entries of a resource and those of every resource (resource 0), expired ones included. */
  async listFor(resourceId: number): Promise<RevocationRecord[]> {
    const [own, everywhere] = await Promise.all([
      this.model.find({ resource_id: resourceId }).lean<RevocationRecord[]>().exec(),
      resourceId === 0 ? [] : this.model.find({ resource_id: 0 }).lean<RevocationRecord[]>().exec(),
    ]);
    return [...own, ...everywhere];
  }

  async remove(ids: readonly string[]): Promise<void> {
    await Promise.all(ids.map((_id) => this.model.deleteOne({ _id }).exec()));
  }
}
