import { isDuplicateKey, rowsOf } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { MemberSessions } from '../access/member-sessions.js';
import type { MemberChangeListener } from '../users/profile-cache.js';
import { relationshipKey, relationshipModel, type RelationshipRecord, type ResourceRole } from './relationship.schema.js';

export interface RelationshipRepositoryDeps {
  db: Connection;
  /** The process's one MemberSessions: a restored relationship revokes its old sessions. */
  memberSessions: Pick<MemberSessions, 'revokeAll'>;
  /** Told of every write, after it (the profile cache, ADR 0191). */
  changes: MemberChangeListener;
}

export class RelationshipRepository {
  private readonly model: Model<RelationshipRecord>;

  constructor(private readonly deps: RelationshipRepositoryDeps) {
    this.model = relationshipModel(deps.db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Every member request's read (sign-in, session check, profile): through the driver (ADR 0191). */
  find(resourceId: number, userId: number): Promise<RelationshipRecord | null> {
    return rowsOf(this.model).findOne({ _id: relationshipKey(resourceId, userId) });
  }

  /**
   * IDs of the resources where the user has a relationship, ascending. Locked and suspended
   * relationships count; a removed one (the member left that resource) does not.
   */
  async listResourceIds(userId: number): Promise<number[]> {
    const rows = await this.model
      .find({ user_id: userId, status: { $ne: 'removed' } }, { resource_id: 1 })
      .sort({ resource_id: 1 })
      .lean<RelationshipRecord[]>()
      .exec();
    return rows.map((row) => row.resource_id);
  }

  /**
   * Attaches the user to the resource unless a relationship exists. The natural `_id` makes
   * two concurrent attaches safe: the second insert fails and the existing record wins. A removed
   * relationship (the member left, docs/adr/0071) counts as none: it becomes active again.
   */
  async attach(resourceId: number, userId: number, role: ResourceRole = 'user'): Promise<{ record: RelationshipRecord; created: boolean }> {
    const now = new Date();
    const record: RelationshipRecord = {
      _id: relationshipKey(resourceId, userId),
      resource_id: resourceId,
      user_id: userId,
      status: 'active',
      role,
      password_hash: null,
      extra: {},
      created_at: now,
      updated_at: now,
    };
    try {
      await this.model.create(record);
      this.deps.changes.changed(userId);
      return { record, created: true };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await this.find(resourceId, userId);
      if (!existing) throw error;
      if (existing.status === 'removed' && (await this.rejoin(record))) return { record, created: true };
      return { record: existing, created: false };
    }
  }

  /**
   * Turns a removed relationship into the fresh one given; false when it is not removed. The
   * winner revokes the sessions kept from before the removal (docs/adr/0071), so that no token of
   * the removed profile comes back to life; sessions created since the rejoin began (this
   * sign-in's, a parallel one's) are not touched.
   */
  private async rejoin(fresh: RelationshipRecord): Promise<boolean> {
    const { status, role, password_hash, extra, updated_at } = fresh;
    const result = await this.model
      .updateOne({ _id: fresh._id, status: 'removed' }, { $set: { status, role, password_hash, extra, updated_at } })
      .exec();
    if (result.modifiedCount !== 1) return false;
    this.deps.changes.changed(fresh.user_id);
    await this.deps.memberSessions.revokeAll(fresh.user_id, fresh.resource_id, updated_at);
    return true;
  }

  async setRole(resourceId: number, userId: number, role: ResourceRole): Promise<void> {
    await this.set(resourceId, userId, { role });
  }

  async setPasswordHash(resourceId: number, userId: number, passwordHash: string): Promise<void> {
    await this.set(resourceId, userId, { password_hash: passwordHash });
  }

  /**
   * Sets the resource password only while none is set; false when one already was. The guard
   * is one conditional update (on FerretDB read-then-write: two parallel first sets can both pass).
   */
  setInitialPasswordHash(resourceId: number, userId: number, passwordHash: string): Promise<boolean> {
    return this.replacePasswordHash(resourceId, userId, null, passwordHash);
  }

  /**
   * Replaces the resource password's hash only while it is still `current` (null: while none is
   * set); false when it was not. A rehash at sign-in passes the hash it verified.
   */
  async replacePasswordHash(resourceId: number, userId: number, current: string | null, fresh: string): Promise<boolean> {
    const result = await this.model
      .updateOne(
        { _id: relationshipKey(resourceId, userId), password_hash: current },
        { $set: { password_hash: fresh, updated_at: new Date() } },
      )
      .exec();
    this.deps.changes.changed(userId);
    return result.modifiedCount === 1;
  }

  /** Sets the supplied keys of the relationship's extra, leaving the others (PUT /user `extra`). */
  async mergeExtra(resourceId: number, userId: number, extra: Record<string, unknown>): Promise<void> {
    await this.set(resourceId, userId, Object.fromEntries(Object.entries(extra).map(([key, value]) => [`extra.${key}`, value])));
  }

  private async set(resourceId: number, userId: number, fields: Record<string, unknown>): Promise<void> {
    await this.model.updateOne({ _id: relationshipKey(resourceId, userId) }, { $set: { ...fields, updated_at: new Date() } }).exec();
    this.deps.changes.changed(userId);
  }
}
