import type { Connection } from 'mongoose';
import { sessionExpiry } from '../sessions/session.repository.js';
import { sessionModels, type SessionModels, type SessionRecord } from '../sessions/session.schema.js';

/**
 * The sessions of one member in one resource, as the lock policy, the relationship changes and a
 * rejoin after removal see them. Reads use the `{user_id, resource_id}` index of the sessions collection.
 */
export class MemberSessions {
  private readonly models: SessionModels;

  constructor(db: Connection) {
    this.models = sessionModels(db);
  }

  /**
   * Sessions still usable (not revoked, not compromised, not expired), oldest first. By creation
   * time, not ID: replicas hand out session IDs from blocks (ADR 0191), so IDs interleave. A
   * session past its sign-in expiry lives on while a token from a refresh does (ADR 0204).
   */
  async live(userId: number, resourceId: number): Promise<SessionRecord[]> {
    const open = await this.models.sessions
      .find({ user_id: userId, resource_id: resourceId, revoked_at: null, compromised_at: null })
      .lean<SessionRecord[]>()
      .exec();
    const now = Date.now();
    const expiries = await Promise.all(
      open.map((session) => (session.expires_at.getTime() > now ? session.expires_at : sessionExpiry(this.models, session))),
    );
    const sessions = open.filter((_, index) => expiries[index]!.getTime() > now);
    return sessions.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a._id - b._id);
  }

  /**
   * Compromised sessions the policy has not handled yet. Handling one revokes it, so that one
   * replay triggers the policy once and an operator's restore is not undone at the next sign-in.
   */
  async hasUnhandledCompromise(userId: number, resourceId: number): Promise<boolean> {
    const found = await this.models.sessions
      .findOne({ user_id: userId, resource_id: resourceId, revoked_at: null, compromised_at: { $ne: null } }, { _id: 1 })
      .lean()
      .exec();
    return found !== null;
  }

  /**
   * Deletes what would renew the member's sessions in the resource: their refresh records and
   * unused authorization codes (each exchanges for new credentials). The sessions stay.
   */
  async dropRenewals(userId: number, resourceId: number): Promise<void> {
    await this.models.refreshTokens.deleteMany({ user_id: userId, resource_id: resourceId }).exec();
    await this.models.authCodes.deleteMany({ user_id: userId, resource_id: resourceId, used_at: null }).exec();
  }

  /**
   * Revokes every session of the member in the resource that is not revoked yet (compromised ones
   * included), or only those created before `createdBefore`, and deletes their refresh records;
   * returns the revoked IDs, ascending.
   */
  async revokeAll(userId: number, resourceId: number, createdBefore?: Date): Promise<number[]> {
    const created = createdBefore ? { created_at: { $lt: createdBefore } } : {};
    const open = await this.models.sessions
      .find({ user_id: userId, resource_id: resourceId, revoked_at: null, ...created }, { _id: 1 })
      .sort({ _id: 1 })
      .lean<Array<Pick<SessionRecord, '_id'>>>()
      .exec();
    return this.revoke(open.map((session) => session._id));
  }

  /**
   * Revokes the given sessions and deletes their refresh records, each session before its records
   * (ADR 0217); returns the IDs. One equality per write: FerretDB serves `_id` and `session_id`
   * equalities from indexes but reads a whole collection for `$in`.
   */
  async revoke(sessionIds: number[]): Promise<number[]> {
    const revokedAt = new Date();
    await Promise.all(
      sessionIds.map(async (id) => {
        await this.models.sessions.updateOne({ _id: id, revoked_at: null }, { $set: { revoked_at: revokedAt } }).exec();
        await this.models.refreshTokens.deleteMany({ session_id: id }).exec();
      }),
    );
    return sessionIds;
  }
}
