import type { EventWitness } from '@masthead/core/events';
import type { AccessAnnouncer } from './access-announcer.js';
import type { SessionRepository } from './session.repository.js';
import type { Rotation } from './rotation-seal.js';
import type { SessionRecord, SessionRef } from './session.schema.js';
import { hashToken, newToken } from './tokens.js';

export interface SessionPolicy {
  sessionTtlSeconds: number;
  refreshTtlSeconds: number;
  authCodeTtlSeconds: number;
}

export interface IssueSessionInput {
  userId: number;
  resourceId: number;
  sourceType: string | null;
  guestSession: string | null;
  ip: string | null;
  userAgent: string | null;
}

/** The credentials handed to the client once; only their hashes are stored. */
export interface IssuedSession {
  /** The session the credentials belong to. */
  session: SessionRef;
  token: string;
  refreshToken: string;
  /** The issued token's expiry: the session's at sign-in, a later one at a refresh (ADR 0204). */
  expiresAt: Date;
}

export type SessionState = 'active' | 'expired' | 'compromised' | 'unknown';

export interface SessionServiceDeps {
  repository: SessionRepository;
  policy: SessionPolicy;
  access: AccessAnnouncer;
}

export class SessionService {
  constructor(private readonly deps: SessionServiceDeps) {}

  /** `markFor` marks the session row with the event of its start (docs/adr/0180). */
  async issue(input: IssueSessionInput, markFor?: (witness: EventWitness) => Promise<Record<string, unknown>>): Promise<IssuedSession> {
    const now = Date.now();
    const session = await this.deps.repository.createSession(
      {
        user_id: input.userId,
        resource_id: input.resourceId,
        expires_at: new Date(now + this.deps.policy.sessionTtlSeconds * 1000),
        source_type: input.sourceType,
        guest_session: input.guestSession,
        ip: input.ip,
        user_agent: input.userAgent,
      },
      markFor,
    );
    const token = newToken();
    const refreshToken = newToken();
    await Promise.all([
      this.deps.repository.addToken(hashToken(token), session._id, session.expires_at),
      this.deps.repository.addRefreshToken(hashToken(refreshToken), session, new Date(now + this.deps.policy.refreshTtlSeconds * 1000)),
    ]);
    return { session, token, refreshToken, expiresAt: session.expires_at };
  }

  /** Issues a one-time authorization code bound to the session and its destination ('' = none). */
  async issueAuthCode(session: SessionRef, redirectUri: string): Promise<string> {
    const code = newToken();
    await this.deps.repository.addAuthCode({
      _id: hashToken(code),
      session_id: session._id,
      user_id: session.user_id,
      resource_id: session.resource_id,
      redirect_uri: redirectUri,
      expires_at: new Date(Date.now() + this.deps.policy.authCodeTtlSeconds * 1000),
    });
    return code;
  }

  /**
   * Gives a live session a new token with a later expiry, and — unless the caller keeps its
   * refresh record — a new refresh record. Earlier tokens keep their own expiry.
   */
  rotate(session: SessionRef, keepRefreshToken: string | null): Promise<IssuedSession> {
    return this.applyRotation(session, this.planRotation(keepRefreshToken), keepRefreshToken !== null);
  }

  /** Chooses new credentials without storing them (a refresh claim carries them sealed). */
  planRotation(keepRefreshToken: string | null): Rotation {
    const now = Date.now();
    return {
      token: newToken(),
      refreshToken: keepRefreshToken ?? newToken(),
      expiresAt: new Date(now + this.deps.policy.sessionTtlSeconds * 1000),
      refreshExpiresAt: new Date(now + this.deps.policy.refreshTtlSeconds * 1000),
    };
  }

  /**
   * Stores a planned rotation and answers it. Idempotent, so the same rotation may be applied
   * again by a second use within the reuse window (ADR 0086); a kept refresh record
   * (`keepsRefreshRecord`) is not stored again.
   */
  async applyRotation(session: SessionRef, rotation: Rotation, keepsRefreshRecord = false): Promise<IssuedSession> {
    await this.deps.repository.storeRotation(session, rotation, !keepsRefreshRecord);
    return { session, token: rotation.token, refreshToken: rotation.refreshToken, expiresAt: rotation.expiresAt };
  }

  async logout(sessionId: number): Promise<void> {
    const session = await this.deps.repository.findSession(sessionId);
    if (!session) return;
    await this.deps.repository.revoke(sessionId);
    this.deps.access.sessionEnded(session, 'logout');
  }

  /** A replayed refresh record leaked: every token of its session stops working (ADR 0004). */
  async markCompromised(session: SessionRef): Promise<void> {
    await this.deps.repository.markCompromised(session._id);
    this.deps.access.sessionEnded(session, 'compromised');
  }

  cleanupRefresh(userId: number): Promise<void> {
    return this.deps.repository.deleteRefreshTokensOfUser(userId);
  }

  /** After a password reset: every session of the user ends and no refresh record survives. */
  async revokeAllOfUser(userId: number): Promise<void> {
    await this.deps.repository.revokeAllOfUser(userId);
    this.deps.access.memberChanged(userId, null, 'sessions_revoked');
  }

  /** Resolves a presented token; never throws for a bad token, the caller decides. */
  async resolve(token: string): Promise<{ state: SessionState; session: SessionRecord | null }> {
    if (!token || token.length > 512) return { state: 'unknown', session: null };
    const found = await this.deps.repository.findByTokenHash(hashToken(token));
    if (!found) return { state: 'unknown', session: null };
    const { session, tokenExpiresAt } = found;
    if (session.compromised_at) return { state: 'compromised', session };
    // The token's own expiry decides: a refreshed session outlives its sign-in expiry (ADR 0204).
    if (session.revoked_at || tokenExpiresAt.getTime() <= Date.now()) return { state: 'expired', session };
    return { state: 'active', session };
  }
}
