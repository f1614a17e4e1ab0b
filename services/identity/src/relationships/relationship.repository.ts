import { isDuplicateKey, rowsOf } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { MemberSessions } from '../access/member-sessions.js';
import { relationshipScope, type CredentialRepository, type MemberCredentials } from '../credentials/credential.repository.js';
import type { MemberChangeListener } from '../users/profile-cache.js';
import {
  relationshipKey,
  relationshipModel,
  type RelationshipCredentials,
  type RelationshipRecord,
  type RelationshipState,
  type ResourceRole,
} from './relationship.schema.js';

/** What leaving a resource clears from the relationship's security state: its resource-scoped part. */
const REMOVED_CREDENTIALS = { password_hash: null, role: 'user' } as const;

/** The relationship row with its newest security state (docs/adr/0210); the row's own fields are version 0. */
export function withRelationshipCredentials(row: RelationshipRecord | null, credentials: MemberCredentials): RelationshipRecord | null {
  const state = row && credentials.stateOf<RelationshipCredentials>(relationshipScope(row.resource_id, row.user_id));
  return state ? { ...row, status: state.status, role: state.role, password_hash: state.password_hash } : row;
}

export interface RelationshipRepositoryDeps {
  db: Connection;
  /** The process's one MemberSessions: a restored relationship revokes its old sessions. */
  memberSessions: Pick<MemberSessions, 'revokeAll'>;
  /** Told of every write, after it (the profile cache, ADR 0191). */
  changes: MemberChangeListener;
  credentials: CredentialRepository;
}

/**
 * Relationship rows hold the per-resource `extra` (PUT /user) and the state they were created
 * with; every later change of status, role or resource password is a credential version
 * (docs/adr/0210), so that no write of `extra` can undo one, nor one of them another.
 */
export class RelationshipRepository {
  private readonly model: Model<RelationshipRecord>;

  constructor(private readonly deps: RelationshipRepositoryDeps) {
    this.model = relationshipModel(deps.db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /**
   * Every member request's read (sign-in, session check, profile): through the driver (ADR 0191),
   * beside the member's credentials (`credentials`: a read the caller may share with the user's).
   */
  async find(resourceId: number, userId: number, credentials = this.deps.credentials.read(userId)): Promise<RelationshipRecord | null> {
    const [row, read] = await Promise.all([rowsOf(this.model).findOne({ _id: relationshipKey(resourceId, userId) }), credentials]);
    return withRelationshipCredentials(row, read);
  }

  /**
   * IDs of the resources where the user has a relationship, ascending. Locked and suspended
   * relationships count; a removed one (the member left that resource) does not.
   */
  async listResourceIds(userId: number): Promise<number[]> {
    const [rows, credentials] = await Promise.all([
      this.model.find({ user_id: userId }).sort({ resource_id: 1 }).lean<RelationshipRecord[]>().exec(),
      this.deps.credentials.read(userId),
    ]);
    return rows
      .map((row) => withRelationshipCredentials(row, credentials)!)
      .filter((row) => row.status !== 'removed')
      .map((row) => row.resource_id);
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
    const { resource_id: resourceId, user_id: userId, status, role, password_hash, updated_at } = fresh;
    const rejoined = await this.changeCredentials(resourceId, userId, (current) =>
      current?.status === 'removed' ? { status, role, password_hash } : null,
    );
    if (!rejoined) return false;
    await this.setExtra(resourceId, userId, {});
    await this.deps.memberSessions.revokeAll(userId, resourceId, updated_at);
    return true;
  }

  /**
   * Moves the relationship from one of `from` to `to`; false when it was in none of them. The
   * versions order concurrent moves: a move that lost the race judges the winner's state.
   * Leaving (`removed`) clears the resource password, role and extra.
   */
  async move(resourceId: number, userId: number, from: readonly RelationshipState[], to: RelationshipState): Promise<boolean> {
    const moved = await this.changeCredentials(resourceId, userId, (current) => {
      if (!current || !from.includes(current.status)) return null;
      return to === 'removed' ? { ...current, ...REMOVED_CREDENTIALS, status: to } : { ...current, status: to };
    });
    if (moved && to === 'removed') await this.setExtra(resourceId, userId, {});
    return moved !== null;
  }

  async setRole(resourceId: number, userId: number, role: ResourceRole): Promise<void> {
    await this.changeCredentials(resourceId, userId, (current) => current && { ...current, role });
  }

  async setPasswordHash(resourceId: number, userId: number, passwordHash: string): Promise<void> {
    await this.changeCredentials(resourceId, userId, (current) => current && { ...current, password_hash: passwordHash });
  }

  /** Sets the resource password only while none is set; false when one already was. */
  setInitialPasswordHash(resourceId: number, userId: number, passwordHash: string): Promise<boolean> {
    return this.replacePasswordHash(resourceId, userId, null, passwordHash);
  }

  /**
   * Replaces the resource password's hash only while it is still `current` (null: while none is
   * set); false when it was not. A rehash at sign-in passes the hash it verified.
   */
  async replacePasswordHash(resourceId: number, userId: number, current: string | null, fresh: string): Promise<boolean> {
    const written = await this.changeCredentials(resourceId, userId, (state) =>
      state && state.password_hash === current ? { ...state, password_hash: fresh } : null,
    );
    return written !== null;
  }

  /** Sets the supplied keys of the relationship's extra, leaving the others (PUT /user `extra`). */
  async mergeExtra(resourceId: number, userId: number, extra: Record<string, unknown>): Promise<void> {
    await this.set(resourceId, userId, Object.fromEntries(Object.entries(extra).map(([key, value]) => [`extra.${key}`, value])));
  }

  private async setExtra(resourceId: number, userId: number, extra: Record<string, unknown>): Promise<void> {
    await this.set(resourceId, userId, { extra });
  }

  /** Writes the row's own fields: `extra` only (never a security field, docs/adr/0210). */
  private async set(resourceId: number, userId: number, fields: Record<string, unknown>): Promise<void> {
    await this.model.updateOne({ _id: relationshipKey(resourceId, userId) }, { $set: { ...fields, updated_at: new Date() } }).exec();
    this.deps.changes.changed(userId);
  }

  /** The relationship's next security state (CredentialRepository.change); null when none was written. */
  private changeCredentials(
    resourceId: number,
    userId: number,
    decide: (current: RelationshipCredentials | null) => RelationshipCredentials | null,
  ): Promise<RelationshipCredentials | null> {
    const stored = async () => {
      const row = await rowsOf(this.model).findOne({ _id: relationshipKey(resourceId, userId) });
      return row && { status: row.status, role: row.role, password_hash: row.password_hash ?? null };
    };
    return this.deps.credentials.change(userId, relationshipScope(resourceId, userId), stored, decide);
  }
}
