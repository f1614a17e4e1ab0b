import { witnessOf, type EventWitness } from '@masthead/core/events';
import { CoalescedWrites, insertIfAbsent, insertWithNextId, rowsOf } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import {
  sessionModels,
  type AuthCodeRecord,
  type RefreshTokenRecord,
  type SessionModels,
  type SessionRecord,
  type SecretUseRecord,
  type SessionRef,
  type SessionTokenRecord,
} from './session.schema.js';
import type { Rotation } from './rotation-seal.js';
import { hashToken } from './tokens.js';

export type NewSession = Omit<SessionRecord, '_id' | 'created_at' | 'revoked_at' | 'compromised_at'>;

/**
 * Session IDs taken from the counter at once per process: a sign-in then costs no counter update
 * (a contended read-modify-write on FerretDB) but one in this many (ADR 0191).
 */
const SESSION_ID_BLOCK = 64;

/**
 * Sessions, their tokens, refresh records, authorization codes and the claims of one-time
 * secrets. The reads and writes of sign-in, the session check and refresh go through the driver
 * (`rowsOf`), every field written here (ADR 0191), their inserts sent together under concurrency
 * (ADR 0193); the rest through mongoose. After its insert a session is updated only by ending
 * writes (revocation, compromise): FerretDB rewrites a whole document per update, so any other
 * update could write an ending back out (ADR 0204).
 */
export class SessionRepository {
  private readonly models: SessionModels;
  // The writes of every sign-in and refresh, sent together under concurrency (ADR 0193).
  private readonly tokenInserts: CoalescedWrites<SessionTokenRecord>;
  private readonly refreshInserts: CoalescedWrites<RefreshTokenRecord>;
  private readonly authCodeInserts: CoalescedWrites<AuthCodeRecord>;

  constructor(private readonly db: Connection) {
    this.models = sessionModels(db);
    this.tokenInserts = new CoalescedWrites(rowsOf(this.models.tokens));
    this.refreshInserts = new CoalescedWrites(rowsOf(this.models.refreshTokens));
    this.authCodeInserts = new CoalescedWrites(rowsOf(this.models.authCodes));
  }

  async ready(): Promise<void> {
    await Promise.all(Object.values(this.models).map((model) => model.createIndexes()));
  }

  /** `markFor` marks the new row with the event of its start (docs/adr/0180). */
  createSession(session: NewSession, markFor?: (witness: EventWitness) => Promise<Record<string, unknown>>): Promise<SessionRecord> {
    const { sessions } = this.models;
    return insertWithNextId(
      this.db,
      sessions,
      { ...session, created_at: new Date(), revoked_at: null, compromised_at: null },
      { block: SESSION_ID_BLOCK, plain: true, fieldsFor: markFor && ((id) => markFor(witnessOf(sessions, id))) },
    );
  }

  async addToken(tokenHash: string, sessionId: number, expiresAt: Date): Promise<void> {
    await this.tokenInserts.insertOne({ _id: tokenHash, session_id: sessionId, expires_at: expiresAt });
  }

  async addRefreshToken(tokenHash: string, session: SessionRef, expiresAt: Date): Promise<void> {
    await this.refreshInserts.insertOne({
      _id: tokenHash,
      session_id: session._id,
      user_id: session.user_id,
      resource_id: session.resource_id,
      expires_at: expiresAt,
      created_at: new Date(),
      tracks_session: true,
      compromised_at: null,
    });
  }

  /** A used record goes: its claim answers for it from now on (ADR 0217). */
  async deleteRefreshToken(tokenHash: string): Promise<void> {
    await rowsOf(this.models.refreshTokens).deleteOne({ _id: tokenHash });
  }

  /**
   * Stores a rotation's token and refresh record: inserts only, the session is not written (its
   * later expiry is the token's, ADR 0204). Idempotent: storing the same rotation again (a second
   * use within the reuse window, ADR 0086) finds the records there.
   */
  async storeRotation(session: SessionRef, rotation: Rotation, withRefreshRecord: boolean): Promise<void> {
    await Promise.all([
      insertIfAbsent(this.addToken(hashToken(rotation.token), session._id, rotation.expiresAt)),
      withRefreshRecord ? insertIfAbsent(this.addRefreshToken(hashToken(rotation.refreshToken), session, rotation.refreshExpiresAt)) : null,
    ]);
  }

  async addAuthCode(record: Omit<AuthCodeRecord, 'used_at'>): Promise<void> {
    // A refresh's default response type (`code_and_token`) issues one: through the driver too.
    await this.authCodeInserts.insertOne({ ...record, used_at: null });
  }

  /**
   * Token hash → the token's own expiry and its session, two `_id` reads. A token of an earlier
   * version has no expiry of its own and lives as long as its session.
   */
  async findByTokenHash(tokenHash: string): Promise<{ session: SessionRecord; tokenExpiresAt: Date } | null> {
    const token: SessionTokenRecord | null = await rowsOf(this.models.tokens).findOne({ _id: tokenHash });
    if (!token) return null;
    const session = await this.findSession(token.session_id);
    if (!session) return null;
    return { session, tokenExpiresAt: token.expires_at ?? (await sessionExpiry(this.models, session)) };
  }

  findSession(sessionId: number): Promise<SessionRecord | null> {
    return rowsOf(this.models.sessions).findOne({ _id: sessionId });
  }

  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | null> {
    return rowsOf(this.models.refreshTokens).findOne({ _id: tokenHash });
  }

  findAuthCode(codeHash: string): Promise<AuthCodeRecord | null> {
    return rowsOf(this.models.authCodes).findOne({ _id: codeHash });
  }

  /**
   * Claims a one-time secret by its hash, with a refresh claim's session and sealed answer in the
   * same insert; false when it was used before.
   */
  async claimUse(secretHash: string, reuse?: { sealed: string; until: Date }, session?: SessionRef): Promise<boolean> {
    const record: SecretUseRecord = { _id: secretHash, used_at: new Date() };
    if (reuse) Object.assign(record, { reuse: reuse.sealed, reuse_until: reuse.until });
    if (session) Object.assign(record, { session_id: session._id, user_id: session.user_id, resource_id: session.resource_id });
    return insertIfAbsent(rowsOf(this.models.secretUses).insertOne(record));
  }

  findUse(secretHash: string): Promise<SecretUseRecord | null> {
    return rowsOf(this.models.secretUses).findOne({ _id: secretHash });
  }

  /** Erases sealed answers whose reuse window has passed; the claims stay (replay detection). */
  async eraseExpiredReuse(now = new Date()): Promise<void> {
    await this.models.secretUses.updateMany({ reuse_until: { $lte: now } }, { $unset: { reuse: 1, reuse_until: 1 } }).exec();
  }

  async markAuthCodeUsed(codeHash: string): Promise<void> {
    await this.models.authCodes.updateOne({ _id: codeHash }, { $set: { used_at: new Date() } }).exec();
  }

  /**
   * The session first, then its records: a refresh storing a record meanwhile reads the session
   * after its insert and takes its record back (ADR 0217).
   */
  async markCompromised(sessionId: number): Promise<void> {
    const compromised = { $set: { compromised_at: new Date() } };
    await this.models.sessions.updateOne({ _id: sessionId }, compromised).exec();
    await this.models.refreshTokens.updateMany({ session_id: sessionId }, compromised).exec();
  }

  async revoke(sessionId: number): Promise<void> {
    await this.models.sessions.updateOne({ _id: sessionId }, { $set: { revoked_at: new Date() } }).exec();
    await this.models.refreshTokens.deleteMany({ session_id: sessionId }).exec();
  }

  /** Removes every refresh record of a user; sessions and their tokens stay. */
  async deleteRefreshTokensOfUser(userId: number): Promise<void> {
    await this.models.refreshTokens.deleteMany({ user_id: userId }).exec();
  }

  /**
   * Revokes the user's sessions in the resource other than `keepSessionId` and deletes their
   * refresh records (a changed resource password ends them); returns how many were revoked.
   */
  async revokeOthers(userId: number, resourceId: number, keepSessionId: number): Promise<number> {
    const others = { user_id: userId, resource_id: resourceId, _id: { $ne: keepSessionId } };
    const result = await this.models.sessions.updateMany({ ...others, revoked_at: null }, { $set: { revoked_at: new Date() } }).exec();
    await this.models.refreshTokens.deleteMany({ user_id: userId, resource_id: resourceId, session_id: { $ne: keepSessionId } }).exec();
    return result.modifiedCount;
  }

  /** Revokes every live session of a user (all resources) and removes all their refresh records. */
  async revokeAllOfUser(userId: number): Promise<void> {
    await this.models.sessions.updateMany({ user_id: userId, revoked_at: null }, { $set: { revoked_at: new Date() } }).exec();
    await this.deleteRefreshTokensOfUser(userId);
  }
}

/**
 * When a session stops being usable unless refreshed again: the expiry of its newest token, or
 * the session's own (set at sign-in; moved by refreshes of earlier versions), whichever is later.
 */
export async function sessionExpiry(models: Pick<SessionModels, 'tokens'>, session: SessionRecord): Promise<Date> {
  const newest = await rowsOf(models.tokens)
    .find({ session_id: session._id }, { projection: { expires_at: 1 } })
    .sort({ expires_at: -1 })
    .limit(1)
    .next();
  const tokenExpiry = newest?.expires_at?.getTime() ?? 0;
  return tokenExpiry > session.expires_at.getTime() ? new Date(tokenExpiry) : session.expires_at;
}
