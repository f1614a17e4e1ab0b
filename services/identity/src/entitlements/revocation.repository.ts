import { insertIfAbsent } from '@masthead/core/mongo';
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

  /** Records an entry; one recorded already (another replica's, of the same event) is left as it is. */
  async record(entry: RevocationRecord): Promise<void> {
    await insertIfAbsent(this.model.create(entry));
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
