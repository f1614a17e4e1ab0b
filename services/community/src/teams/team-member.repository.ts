import { allocateId, claimSlot, isDuplicateKey, settleIdClash } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { teamMemberModel, type TeamMemberRecord, type TeamMemberStatus, type TeamRole } from './team-member.schema.js';

export type NewTeamMember = Omit<TeamMemberRecord, '_id' | 'created_at' | 'seat'>;

/** What claiming a seat ended with: the new row, a full team, or a relationship that exists. */
export type SeatClaim = { row: TeamMemberRecord } | { full: true } | { existing: TeamMemberRecord };

class ExistingRelationship extends Error {
  constructor(readonly row: TeamMemberRecord) {
    super('relationship exists');
  }
}

class IdClash extends Error {
  constructor() {
    super('proposed ID taken');
  }
}

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

  /** The user's relationship with the team, any status. */
  find(teamId: number, userId: number): Promise<TeamMemberRecord | null> {
    return this.model.findOne({ team_id: teamId, user_id: userId }).lean<TeamMemberRecord>().exec();
  }

  /** The relationships of these teams matching `filter`, oldest first. */
  listForTeams(teamIds: number[], filter: Record<string, unknown> = {}): Promise<TeamMemberRecord[]> {
    return this.model
      .find({ ...filter, team_id: { $in: teamIds } })
      .sort({ _id: 1 })
      .lean<TeamMemberRecord[]>()
      .exec();
  }

  /** A page of a team's non-owner relationships that are not removed. */
  async pageNonOwners(teamId: number, skip: number, limit: number): Promise<{ rows: TeamMemberRecord[]; total: number }> {
    const filter = { team_id: teamId, role: { $ne: 'owner' }, status: { $ne: 'removed' } };
    const [rows, total] = await Promise.all([
      this.model.find(filter).sort({ _id: 1 }).skip(skip).limit(limit).lean<TeamMemberRecord[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { rows, total };
  }

  /** Active relationships of the team holding the Pricing (the seat check of team invites). */
  countActiveWithPricing(teamId: number, pricingId: number): Promise<number> {
    return this.model.countDocuments({ team_id: teamId, pricing_id: pricingId, status: 'active' }).exec();
  }

  /**
   * Inserts the relationship on a free seat below `limit` (0 = no cap). Every relationship holds
   * a seat, inactive ones included (document 2 D counts them all). The row's ID is proposed once
   * and each seat probe is a single insert: under a rush of parallel activations a probe costs no
   * counter round trip, and a team counted full is refused without probing.
   */
  async claimSeat(member: NewTeamMember, limit: number): Promise<SeatClaim> {
    // The user's relationship first: a full team would be refused before any probe met it.
    const held = await this.find(member.team_id, member.user_id);
    if (held) return { existing: held };
    const from = await this.model.countDocuments({ team_id: member.team_id }).exec();
    for (;;) {
      const row: TeamMemberRecord = {
        ...member,
        pricing_id: member.pricing_id ?? null,
        _id: await allocateId(this.db, this.model),
        seat: 0,
        created_at: new Date(),
      };
      try {
        const seat = await claimSlot((slot) => this.insertOnSeat(row, slot), from, limit);
        return seat === null ? { full: true } : { row: { ...row, seat } };
      } catch (error) {
        if (error instanceof ExistingRelationship) return { existing: error.row };
        if (!(error instanceof IdClash)) throw error;
        await settleIdClash(this.db, this.model, row._id);
      }
    }
  }

  /**
   * One seat probe. FerretDB's duplicate-key error does not name the index, so a refusal is read
   * back: a taken seat lets the scan go on; otherwise the user's relationship exists (a parallel
   * activation) or the proposed ID was taken.
   */
  private async insertOnSeat(row: TeamMemberRecord, seat: number): Promise<void> {
    try {
      await this.model.create({ ...row, seat });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      if (await this.model.exists({ team_id: row.team_id, seat })) throw error;
      const existing = await this.find(row.team_id, row.user_id);
      if (existing) throw new ExistingRelationship(existing);
      throw new IdClash();
    }
  }

  /** Fixtures and team creation: the owner's row on the first free seat, no cap. */
  async insert(member: NewTeamMember): Promise<TeamMemberRecord> {
    const claim = await this.claimSeat(member, 0);
    if ('row' in claim) return claim.row;
    throw Object.assign(new Error('E11000 relationship exists'), { code: 11000 });
  }

  update(teamId: number, userId: number, changes: Partial<{ role: TeamRole; status: TeamMemberStatus; pricing_id: number | null }>) {
    return this.model
      .findOneAndUpdate({ team_id: teamId, user_id: userId }, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<TeamMemberRecord>()
      .exec();
  }

  /** Gives back the relationship (and its seat) an activation created, when its grant was refused for good. */
  async deleteOfActivation(teamId: number, userId: number, activationId: string): Promise<void> {
    await this.model.deleteOne({ team_id: teamId, user_id: userId, activation_id: activationId }).exec();
  }

  /** Team deletion: every relationship is marked removed (kept as history). */
  async removeAll(teamId: number): Promise<void> {
    await this.model.updateMany({ team_id: teamId }, { $set: { status: 'removed', updated_at: new Date() } }).exec();
  }
}
