import { tokenCompromised, type ServiceError } from '@masthead/core/errors';
import type { SessionRepository } from './session.repository.js';
import type { RefreshTokenRecord, SecretUseRecord, SessionRecord, SessionRef } from './session.schema.js';
import type { IssuedSession, SessionService } from './session.service.js';
import { openRotation, sealRotation, type Rotation } from './rotation-seal.js';
import { hashToken } from './tokens.js';
import { invalidGrant, refreshFailed } from './session.errors.js';

export interface RefreshCommand {
  resourceId: number;
  refreshToken: string;
  /** Only a JSON boolean true keeps the submitted record (document 1). */
  reusable: boolean;
}

export interface CodeExchangeCommand {
  resourceId: number;
  code: string;
  redirectUri: string;
}

const isLive = (session: SessionRecord | null): session is SessionRecord => !!session && !session.revoked_at && !session.compromised_at;

/** A refresh's error for an ended session; null for a live one. */
function endingOf(session: SessionRecord | null): ServiceError | null {
  if (session?.compromised_at) return tokenCompromised();
  return isLive(session) ? null : refreshFailed();
}

function assertLive(session: SessionRecord | null): void {
  const ending = endingOf(session);
  if (ending) throw ending;
}

/** What a refresh's credentials are stored under, from a record or a claim of it. */
const sessionOf = (stored: Pick<RefreshTokenRecord, 'session_id' | 'user_id' | 'resource_id'>): SessionRef => ({
  _id: stored.session_id,
  user_id: stored.user_id,
  resource_id: stored.resource_id,
});

/** How a second use of one refresh record is told from a replay (ADR 0086). */
export interface RefreshReusePolicy {
  /** Seconds after a record's first use in which a second use gets the same answer; 0: never. */
  reuseIntervalSeconds: number;
}

export interface CredentialExchangeDeps {
  repository: SessionRepository;
  sessions: SessionService;
  reuse: RefreshReusePolicy;
}

/**
 * Exchanges one-time secrets (refresh records, authorization codes) for new credentials of the
 * same session. A refresh record used again within the reuse window (two tabs, a retry after a
 * lost answer) gets the first use's credentials again; used later, or asked to be kept after it
 * was consumed, it leaked: the whole session family is marked compromised (docs/adr/0004, 0086).
 */
export class CredentialExchange {
  constructor(private readonly deps: CredentialExchangeDeps) {}

  async refresh(command: RefreshCommand): Promise<IssuedSession> {
    const tokenHash = hashToken(command.refreshToken);
    const claimId = `refresh:${tokenHash}`;
    const record = await this.deps.repository.findRefreshToken(tokenHash);
    if (!record) return this.refreshUsed(claimId, command);
    if (record.expires_at.getTime() <= Date.now()) throw refreshFailed();
    if (command.resourceId && record.resource_id !== command.resourceId) throw refreshFailed();
    if (record.compromised_at) throw tokenCompromised();
    // A record that tracks its session is live while it exists unmarked (ADR 0217).
    const session = record.tracks_session ? sessionOf(record) : await this.checkEarlierRecord(record, claimId, command.reusable);
    if (command.reusable) return this.deps.sessions.rotate(session, command.refreshToken);
    // The claim is the record of use and carries its answer, sealed with the presented token:
    // it decides between concurrent uses, and a later use finds it taken.
    const rotation = this.deps.sessions.planRotation(null);
    const windowMs = this.deps.reuse.reuseIntervalSeconds * 1000;
    const sealed =
      windowMs > 0 ? { sealed: sealRotation(command.refreshToken, rotation), until: new Date(Date.now() + windowMs) } : undefined;
    if (!(await this.deps.repository.claimUse(claimId, sealed, session))) return this.reused(claimId, command.refreshToken, session);
    // Used: the record goes ("normally deletes the submitted refresh record", document 1, B).
    await this.deps.repository.deleteRefreshToken(tokenHash);
    return this.storeWhileLive(session, rotation);
  }

  /**
   * A record of an earlier version: its session and, for a kept record, its claim say whether
   * it may be used, as they did before ADR 0217. Used records of that version were kept.
   */
  private async checkEarlierRecord(record: RefreshTokenRecord, claimId: string, reusable: boolean): Promise<SessionRef> {
    // A kept record is never claimed, but a consumed one is refused whatever flag comes with it:
    // a retry repeats its request, so asking to keep a record another request consumed is not a
    // retry.
    const [session, consumed] = await Promise.all([
      this.deps.repository.findSession(record.session_id),
      reusable ? this.deps.repository.findUse(claimId) : null,
    ]);
    assertLive(session);
    if (consumed) return this.replayed(sessionOf(record));
    return sessionOf(record);
  }

  /**
   * No record: unknown, ended, or used. A used one is answered by its claim: within the reuse
   * window a second use gets the first one's answer, later (or asked to be kept) it is a replay.
   */
  private async refreshUsed(claimId: string, command: RefreshCommand): Promise<IssuedSession> {
    const claim = await this.deps.repository.findUse(claimId);
    if (claim?.session_id === undefined || claim.user_id === undefined || claim.resource_id === undefined) throw refreshFailed();
    if (command.resourceId && claim.resource_id !== command.resourceId) throw refreshFailed();
    assertLive(await this.deps.repository.findSession(claim.session_id));
    const session = sessionOf({ session_id: claim.session_id, user_id: claim.user_id, resource_id: claim.resource_id });
    if (command.reusable) return this.replayed(session);
    return this.answerAgain(claim, command.refreshToken, session);
  }

  /**
   * A second use of a consumed record: within the reuse window, the first use's credentials, stored
   * again (idempotent) so that they work even if the first use has not finished storing them;
   * otherwise a replay.
   */
  private async reused(claimId: string, refreshToken: string, session: SessionRef): Promise<IssuedSession> {
    return this.answerAgain(await this.deps.repository.findUse(claimId), refreshToken, session);
  }

  private answerAgain(claim: SecretUseRecord | null, refreshToken: string, session: SessionRef): Promise<IssuedSession> {
    const sealed = claim?.reuse && claim.reuse_until && claim.reuse_until.getTime() > Date.now() ? claim.reuse : null;
    const rotation = sealed ? openRotation(refreshToken, sealed) : null;
    if (!rotation) return this.replayed(session);
    return this.storeWhileLive(session, rotation);
  }

  /**
   * Stores a rotation's new record, then reads the session: an ending written meanwhile deleted
   * or marked the records it found, so a record stored after it is taken back here (ADR 0217).
   */
  private async storeWhileLive(session: SessionRef, rotation: Rotation): Promise<IssuedSession> {
    const issued = await this.deps.sessions.applyRotation(session, rotation);
    const ending = endingOf(await this.deps.repository.findSession(session._id));
    if (!ending) return issued;
    await this.deps.repository.deleteRefreshToken(hashToken(rotation.refreshToken));
    throw ending;
  }

  async exchangeCode(command: CodeExchangeCommand): Promise<IssuedSession> {
    const codeHash = hashToken(command.code);
    const record = await this.deps.repository.findAuthCode(codeHash);
    if (!record || record.used_at || record.expires_at.getTime() <= Date.now()) throw invalidGrant();
    if (record.resource_id !== command.resourceId || record.redirect_uri !== command.redirectUri) throw invalidGrant();
    if (!(await this.deps.repository.claimUse(`code:${codeHash}`))) throw invalidGrant();
    await this.deps.repository.markAuthCodeUsed(codeHash);
    const session = await this.deps.repository.findSession(record.session_id);
    if (!isLive(session)) throw invalidGrant();
    return this.deps.sessions.rotate(session, null);
  }

  private async replayed(session: SessionRef): Promise<never> {
    await this.deps.sessions.markCompromised(session);
    throw tokenCompromised();
  }
}
