import { isDuplicateKey } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/** One tag of a member in one resource; the tag is its slug (docs/adr/0060). */
interface UserTagRecord {
  /** `<resource_id>:<user_id>:<slug>`: the natural key, so a tag is held once. */
  _id: string;
  resource_id: number;
  user_id: number;
  slug: string;
  /** Position in the list the member last sent. */
  position: number;
  created_at: Date;
}

const userTagSchema = new Schema<UserTagRecord>(
  {
    _id: { type: String, required: true },
    resource_id: { type: Number, required: true },
    user_id: { type: Number, required: true },
    slug: { type: String, required: true },
    position: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'user_tags', versionKey: false },
);
// Serves "tags of a user" (replacement across resources, GET /user/tags).
userTagSchema.index({ user_id: 1, resource_id: 1 });

export class TagRepository {
  private readonly model: Model<UserTagRecord>;

  constructor(db: Connection) {
    this.model = db.models['UserTag'] ?? db.model<UserTagRecord>('UserTag', userTagSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The user's tag slugs in the resource, in the order last set. */
  async list(userId: number, resourceId: number): Promise<string[]> {
    const rows = await this.model.find({ user_id: userId, resource_id: resourceId }).sort({ position: 1 }).lean<UserTagRecord[]>().exec();
    return rows.map((row) => row.slug);
  }

  /** Drops the user's tags in one resource (profile removal, docs/adr/0071); other resources keep theirs. */
  async removeInResource(userId: number, resourceId: number): Promise<void> {
    await this.model.deleteMany({ user_id: userId, resource_id: resourceId }).exec();
  }

  /**
   * The spec's replacement: every tag of the user in every resource goes, then the resource's
   * new list is written. Two writes, not atomic: a crash between them leaves no tags (ADR 0060).
   */
  async replace(userId: number, resourceId: number, slugs: string[]): Promise<void> {
    await this.model.deleteMany({ user_id: userId }).exec();
    if (slugs.length === 0) return;
    const now = new Date();
    const rows = slugs.map((slug, position) => ({
      _id: `${resourceId}:${userId}:${slug}`,
      resource_id: resourceId,
      user_id: userId,
      slug,
      position,
      created_at: now,
    }));
    try {
      await this.model.insertMany(rows, { ordered: false });
    } catch (error) {
      // A parallel replacement wrote the same tag meanwhile: the tag is held, which is the goal.
      if (!isDuplicateKey(error)) throw error;
    }
  }
}
