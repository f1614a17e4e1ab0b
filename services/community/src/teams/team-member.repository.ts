import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { teamMemberModel, type TeamMemberRecord } from './team-member.schema.js';

export type NewTeamMember = Omit<TeamMemberRecord, '_id' | 'created_at'>;

/** Storage of team_members; results are plain objects. */
export class TeamMemberRepository {
  private readonly model: Model<TeamMemberRecord>;

  constructor(private readonly db: Connection) {
    this.model = teamMemberModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The user's relationships that are not removed (active and suspended), oldest first. */
  listCurrentForUser(userId: number): Promise<TeamMemberRecord[]> {
    return this.model
      .find({ user_id: userId, status: { $ne: 'removed' } })
      .sort({ _id: 1 })
      .lean<TeamMemberRecord[]>()
      .exec();
  }

  /** Throws a duplicate-key error when the user already has a relationship with the team. */
  insert(member: NewTeamMember): Promise<TeamMemberRecord> {
    return insertWithNextId(this.db, this.model, { ...member, created_at: new Date() });
  }
}
