import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import { sessionModels, type AuthCodeRecord, type SessionModels, type SessionRecord } from './session.schema.js';

export type NewSession = Omit<SessionRecord, '_id' | 'created_at' | 'revoked_at' | 'compromised_at'>;

export class SessionRepository {
  private readonly models: SessionModels;

  constructor(private readonly db: Connection) {
    this.models = sessionModels(db);
  }

  async ready(): Promise<void> {
    await Promise.all(Object.values(this.models).map((model) => model.createIndexes()));
  }

  createSession(session: NewSession): Promise<SessionRecord> {
    return insertWithNextId(this.db, this.models.sessions, { ...session, created_at: new Date(), revoked_at: null, compromised_at: null });
  }

  async addToken(tokenHash: string, sessionId: number): Promise<void> {
    await this.models.tokens.create({ _id: tokenHash, session_id: sessionId });
  }

  async addRefreshToken(tokenHash: string, session: SessionRecord, expiresAt: Date): Promise<void> {
    await this.models.refreshTokens.create({
      _id: tokenHash,
      session_id: session._id,
      user_id: session.user_id,
      resource_id: session.resource_id,
      expires_at: expiresAt,
      consumed_at: null,
      created_at: new Date(),
    });
  }

  async addAuthCode(record: Omit<AuthCodeRecord, 'used_at'>): Promise<void> {
    await this.models.authCodes.create({ ...record, used_at: null });
  }

  /** Token hash → session, two `_id` reads. */
  async findByTokenHash(tokenHash: string): Promise<SessionRecord | null> {
    const token = await this.models.tokens.findById(tokenHash).lean().exec();
    if (!token) return null;
    return this.models.sessions.findById(token.session_id).lean<SessionRecord>().exec();
  }
}
