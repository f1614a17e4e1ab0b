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

  /**
   * One `_id` read per team, in parallel: FerretDB cannot use an index for `$in` and would read
   * every team (ADR 0191); a member belongs to few teams.
   */
  async findByIds(ids: number[]): Promise<TeamRecord[]> {
    const found = await Promise.all([...new Set(ids)].map((id) => this.findById(id)));
    return found.filter((team): team is TeamRecord => team !== null);
  }

  /** A page of `find(filter)` in `sort` order, and the total. */
  async page(
    filter: Record<string, unknown>,
    sort: Record<string, 1 | -1>,
    skip: number,
    limit: number,
  ): Promise<{ rows: TeamRecord[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.model.find(filter).sort(sort).skip(skip).limit(limit).lean<TeamRecord[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { rows, total };
  }

  insert(team: NewTeam): Promise<TeamRecord> {
    return insertWithNextId(this.db, this.model, { ...team, created_at: new Date() });
  }

  update(id: number, changes: Partial<Pick<TeamRecord, 'name' | 'description' | 'member_limit' | 'allowed_domains'>>) {
    return this.model
      .findByIdAndUpdate(id, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<TeamRecord>()
      .exec();
  }

  async delete(id: number): Promise<void> {
    await this.model.deleteOne({ _id: id }).exec();
  }
}
