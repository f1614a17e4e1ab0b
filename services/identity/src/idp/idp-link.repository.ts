import { isDuplicateKey } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/** Ties one provider identity (project + UID) to one user. */
export interface IdpLinkRecord {
  /** `<project_id>:<uid>`: the natural key, so that the exchange's lookup is `_id` equality. */
  _id: string;
  project_id: string;
  uid: string;
  user_id: number;
  created_at: Date;
}

const linkSchema = new Schema<IdpLinkRecord>(
  {
    _id: { type: String, required: true },
    project_id: { type: String, required: true },
    uid: { type: String, required: true },
    user_id: { type: Number, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'idp_links', versionKey: false },
);
// Serves "the member's identity in this project" (custom token, docstore, refresh); unique so
// that a user has at most one identity per provider project.
linkSchema.index({ user_id: 1, project_id: 1 }, { unique: true });

export class IdpLinkRepository {
  private readonly model: Model<IdpLinkRecord>;

  constructor(db: Connection) {
    this.model = db.models['IdpLink'] ?? db.model<IdpLinkRecord>('IdpLink', linkSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  findByIdentity(projectId: string, uid: string): Promise<IdpLinkRecord | null> {
    return this.model.findById(`${projectId}:${uid}`).lean<IdpLinkRecord>().exec();
  }

  findByUser(projectId: string, userId: number): Promise<IdpLinkRecord | null> {
    return this.model.findOne({ user_id: userId, project_id: projectId }).lean<IdpLinkRecord>().exec();
  }

  /**
   * Links the identity to the user. Either unique key decides a race: the identity already
   * linked (to anyone) or the user already holding another identity returns the stored link.
   */
  async link(projectId: string, uid: string, userId: number): Promise<IdpLinkRecord> {
    const record: IdpLinkRecord = { _id: `${projectId}:${uid}`, project_id: projectId, uid, user_id: userId, created_at: new Date() };
    try {
      await this.model.create(record);
      return record;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = (await this.findByIdentity(projectId, uid)) ?? (await this.findByUser(projectId, userId));
      if (!existing) throw error;
      return existing;
    }
  }
}
