import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { SealedSecret } from '@masthead/core/secrets';
import { signingKeyModel, type SigningKeyRecord } from './signing-key.schema.js';

/** Storage of the signing keys: a handful of rows, read whole. Plain objects. */
export class SigningKeyRepository {
  private readonly model: Model<SigningKeyRecord>;

  constructor(db: Connection) {
    this.model = signingKeyModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Every key, oldest generation first (a few per year of rotations). */
  list(): Promise<SigningKeyRecord[]> {
    return this.model.find().sort({ generation: 1 }).lean<SigningKeyRecord[]>().exec();
  }

  /** Stores a key under its generation: false when another process stored that generation first. */
  insert(record: SigningKeyRecord): Promise<boolean> {
    return insertIfAbsent(this.model.create(record));
  }

  /** Replaces the sealed private key, only if it is still the one read (a ring rotation at boot). */
  async reseal(record: SigningKeyRecord, sealed: SealedSecret): Promise<void> {
    await this.model
      .updateOne({ _id: record._id, 'private_key.ciphertext': record.private_key.ciphertext }, { $set: { private_key: sealed } })
      .exec();
  }
}
