import { isDuplicateKey } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/** One claimed nick name: the case-folded key is the `_id`, so uniqueness is the primary key. */
interface NickNameClaim {
  _id: string;
  user_id: number;
  claimed_at: Date;
}

const claimSchema = new Schema<NickNameClaim>(
  {
    _id: { type: String, required: true },
    user_id: { type: Number, required: true },
    claimed_at: { type: Date, required: true },
  },
  { collection: 'nick_names', versionKey: false },
);

/**
 * Nick-name uniqueness without a unique index on users (most users have none, and partial
 * indexes are outside our MongoDB subset): a claim document keyed by the nick name. Inserting
 * a claim is atomic on MongoDB and FerretDB alike (DESIGN.md, "MongoDB subset").
 */
export class NickNameRepository {
  private readonly model: Model<NickNameClaim>;

  constructor(db: Connection) {
    this.model = db.models['NickNameClaim'] ?? db.model<NickNameClaim>('NickNameClaim', claimSchema);
  }

  /** The user holding the key, or null when it is free. */
  async holder(key: string): Promise<number | null> {
    const claim = await this.model.findById(key).lean<NickNameClaim>().exec();
    return claim?.user_id ?? null;
  }

  /** Claims the key for the user; false when another user holds it. */
  async claim(key: string, userId: number): Promise<boolean> {
    try {
      await this.model.create({ _id: key, user_id: userId, claimed_at: new Date() });
      return true;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      return (await this.holder(key)) === userId;
    }
  }

  /** Gives up the user's claim on the key (never another user's). */
  async release(key: string, userId: number): Promise<void> {
    await this.model.deleteOne({ _id: key, user_id: userId }).exec();
  }
}
