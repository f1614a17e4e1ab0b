import { claimSlot, insertWithNextId, isDuplicateKey, isStorableText } from '@masthead/core/mongo';
import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { activationModel, type ActivationRecord, type PreviousRelationship } from './activation.schema.js';
import { inviteModel, type InviteRecord } from './invite.schema.js';

export type NewInvite = Omit<InviteRecord, '_id' | 'created_at' | 'code_key'>;

/** What claiming an activation slot ended with. */
export type ActivationClaim = { row: ActivationRecord } | { full: true } | { existing: ActivationRecord };

/** Storage of invites and their activations; every invite lookup names its resource. */
export class InviteRepository {
  private readonly model: Model<InviteRecord>;
  private readonly activations: Model<ActivationRecord>;

  constructor(private readonly db: Connection) {
    this.model = inviteModel(db);
    this.activations = activationModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.model.createIndexes(), this.activations.createIndexes()]);
  }

  /** Throws a duplicate-key error for a second invite of the email and team, or a taken code. */
  insert(invite: NewInvite): Promise<InviteRecord> {
    return insertWithNextId(this.db, this.model, { ...invite, code_key: invite.code.toLowerCase(), created_at: new Date() });
  }

  async findByCode(resourceId: number, code: string): Promise<InviteRecord | null> {
    if (!isStorableText(code)) return null;
    return this.model.findOne({ resource_id: resourceId, code_key: code.toLowerCase() }).lean<InviteRecord>().exec();
  }

  /** By ID alone: the pending-grant pass, which holds an activation, not a resource. */
  findById(id: number): Promise<InviteRecord | null> {
    return this.model.findById(id).lean<InviteRecord>().exec();
  }

  findInTeam(teamId: number, inviteId: number): Promise<InviteRecord | null> {
    return this.model.findOne({ _id: inviteId, team_id: teamId }).lean<InviteRecord>().exec();
  }

  existsForTeamEmail(teamId: number, email: string): Promise<boolean> {
    return this.model
      .exists({ team_id: teamId, email })
      .exec()
      .then((row) => row !== null);
  }

  listForTeams(teamIds: number[]): Promise<InviteRecord[]> {
    return this.model
      .find({ team_id: { $in: teamIds } })
      .sort({ _id: 1 })
      .lean<InviteRecord[]>()
      .exec();
  }

  async pageForTeam(teamId: number, skip: number, limit: number): Promise<{ rows: InviteRecord[]; total: number }> {
    const [rows, total] = await Promise.all([
      this.model.find({ team_id: teamId }).sort({ _id: -1 }).skip(skip).limit(limit).lean<InviteRecord[]>().exec(),
      this.model.countDocuments({ team_id: teamId }).exec(),
    ]);
    return { rows, total };
  }

  update(id: number, changes: Partial<Pick<InviteRecord, 'title' | 'description' | 'user_name'>>) {
    return this.model
      .findByIdAndUpdate(id, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<InviteRecord>()
      .exec();
  }

  async delete(id: number): Promise<void> {
    await this.model.deleteOne({ _id: id }).exec();
  }

  async deleteForTeam(teamId: number): Promise<void> {
    await this.model.deleteMany({ team_id: teamId }).exec();
  }

  findActivation(inviteId: number, userId: number): Promise<ActivationRecord | null> {
    return this.activations.findOne({ invite_id: inviteId, user_id: userId }).lean<ActivationRecord>().exec();
  }

  /** Activations recorded for the invite (the cap of validation's preview). */
  countActivations(inviteId: number): Promise<number> {
    return this.activations.countDocuments({ invite_id: inviteId }).exec();
  }

  /**
   * Records the user's activation on the lowest free slot below the invite's cap (0 = none): a
   * unique claim, so parallel activations never exceed the cap (docs/adr/0134).
   */
  async claimActivation(invite: InviteRecord, userId: number, singleSubscription: boolean): Promise<ActivationClaim> {
    const from = await this.countActivations(invite._id);
    let row: ActivationRecord | undefined;
    let existing: ActivationRecord | null = null;
    const slot = await claimSlot(
      async (candidate) => {
        const document: ActivationRecord = {
          _id: randomUUID(),
          invite_id: invite._id,
          user_id: userId,
          slot: candidate,
          state: 'granting',
          single_subscription: singleSubscription,
          created_at: new Date(),
        };
        try {
          row = (await this.activations.create(document)).toObject();
        } catch (error) {
          existing = isDuplicateKey(error) ? await this.findActivation(invite._id, userId) : null;
          if (existing) return; // the user's own activation: stop probing
          throw error;
        }
      },
      from,
      invite.activations_limit,
    );
    if (existing) return { existing };
    return slot === null || !row ? { full: true } : { row };
  }

  /** The relationship an activation reactivates, as it was: recorded before the change (docs/adr/0233). */
  async recordPrevious(id: string, previous: PreviousRelationship): Promise<void> {
    await this.activations.updateOne({ _id: id }, { $set: { previous_relationship: previous } }).exec();
  }

  async markGranted(id: string, membershipId: number | null): Promise<void> {
    await this.activations.updateOne({ _id: id }, { $set: { state: 'granted', membership_id: membershipId } }).exec();
  }

  /** Activations still granting that were claimed before `before`, oldest first (the pending-grant pass). */
  pendingActivations(before: Date, limit: number): Promise<ActivationRecord[]> {
    return this.activations
      .find({ state: 'granting', created_at: { $lt: before } })
      .sort({ created_at: 1 })
      .limit(limit)
      .lean<ActivationRecord[]>()
      .exec();
  }

  /** Releases a slot whose activation failed afterwards. */
  async releaseActivation(id: string): Promise<void> {
    await this.activations.deleteOne({ _id: id }).exec();
  }
}
