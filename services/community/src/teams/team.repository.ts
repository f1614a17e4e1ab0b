import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { teamModel, type TeamRecord } from './team.schema.js';

export type NewTeam = Omit<TeamRecord, '_id' | 'created_at'>;

/** Storage of teams; results are plain objects. Teams are not resource-scoped (see schema). */
export class TeamRepository {
  private readonly model: Model<TeamRecord>;

  constructor(private readonly db: Connection) {
    this.model = teamModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  findById(id: number): Promise<TeamRecord | null> {
    return this.model.findById(id).lean<TeamRecord>().exec();
  }

  findByIds(ids: number[]): Promise<TeamRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ _id: { $in: ids } })
      .lean<TeamRecord[]>()
      .exec();
  }

  insert(team: NewTeam): Promise<TeamRecord> {
    return insertWithNextId(this.db, this.model, { ...team, created_at: new Date() });
  }
}
