import { isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { VerifiedIdentity } from './id-token-verifier.js';
import { socialLinkKey, socialLinkModel, type SocialLinkRecord } from './social-link.schema.js';

export class SocialLinkRepository {
  private readonly model: Model<SocialLinkRecord>;

  constructor(db: Connection) {
    this.model = socialLinkModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The link of an identity (an `_id` lookup, the sign-in path). */
  find(provider: string, sub: string): Promise<SocialLinkRecord | null> {
    return this.model.findById(socialLinkKey(provider, sub)).lean<SocialLinkRecord>().exec();
  }

  listByUser(userId: number): Promise<SocialLinkRecord[]> {
    return this.model.find({ user_id: userId }).sort({ provider: 1 }).lean<SocialLinkRecord[]>().exec();
  }

  /**
   * Claims the identity for the user by inserting its natural key; the owner of the link, the
   * user or another, is returned either way. Atomic on FerretDB too: two users racing for one
   * identity cannot both insert it.
   */
  async claim(identity: VerifiedIdentity, userId: number): Promise<SocialLinkRecord> {
    const record: SocialLinkRecord = {
      _id: socialLinkKey(identity.provider, identity.sub),
      provider: identity.provider,
      sub: identity.sub,
      user_id: userId,
      email: identity.email,
      created_at: new Date(),
    };
    try {
      await this.model.create(record);
      return record;
    } catch (error) {
      const existing = isDuplicateKey(error) ? await this.find(identity.provider, identity.sub) : null;
      if (!existing) throw error;
      return existing;
    }
  }

  /** Drops the user's links of the provider, except the identity `keep` (when given). */
  async unlink(userId: number, provider: string, keep?: string): Promise<void> {
    const filter = keep === undefined ? { user_id: userId, provider } : { user_id: userId, provider, sub: { $ne: keep } };
    await this.model.deleteMany(filter).exec();
  }
}
