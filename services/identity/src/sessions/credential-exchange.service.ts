import { tokenCompromised } from '@masthead/core/errors';
import type { SessionRepository } from './session.repository.js';
import type { SessionRecord } from './session.schema.js';
import type { IssuedSession, SessionService } from './session.service.js';
import { openRotation, sealRotation } from './rotation-seal.js';
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
    // A kept record is never claimed, but a consumed one is refused whatever flag comes with it:
    // a retry repeats its request, so asking to keep a record another request consumed is not a
    // retry. Its claim is read beside the record.
    const [record, consumed] = await Promise.all([
      this.deps.repository.findRefreshToken(tokenHash),
      command.reusable ? this.deps.repository.findUse(claimId) : null,
    ]);
    if (!record || record.expires_at.getTime() <= Date.now()) throw refreshFailed();
    if (command.resourceId && record.resource_id !== command.resourceId) throw refreshFailed();
    const session = await this.deps.repository.findSession(record.session_id);
    if (session?.compromised_at) throw tokenCompromised();
    if (!isLive(session)) throw refreshFailed();
    if (command.reusable) {
      if (consumed) return this.replayed(session);
      return this.deps.sessions.rotate(session, command.refreshToken);
    }
    // The claim is the record of use and carries its answer, sealed with the presented token:
    // it decides between concurrent uses, and a later use finds it taken.
    const rotation = this.deps.sessions.planRotation(null);
    const windowMs = this.deps.reuse.reuseIntervalSeconds * 1000;
    const sealed =
      windowMs > 0 ? { sealed: sealRotation(command.refreshToken, rotation), until: new Date(Date.now() + windowMs) } : undefined;
    if (await this.deps.repository.claimUse(claimId, sealed)) return this.deps.sessions.applyRotation(session, rotation);
    return this.reused(claimId, command.refreshToken, session);
  }

  /**
   * A second use of a consumed record: within the window, the first use's credentials, stored
   * again (idempotent) so that they work even if the first use has not finished storing them;
   * otherwise a replay.
   */
  private async reused(claimId: string, refreshToken: string, session: SessionRecord): Promise<IssuedSession> {
    const claim = await this.deps.repository.findUse(claimId);
    const sealed = claim?.reuse && claim.reuse_until && claim.reuse_until.getTime() > Date.now() ? claim.reuse : null;
    const rotation = sealed ? openRotation(refreshToken, sealed) : null;
    if (!rotation) return this.replayed(session);
    return this.deps.sessions.applyRotation(session, rotation);
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

  private async replayed(session: SessionRecord): Promise<never> {
    await this.deps.sessions.markCompromised(session);
    throw tokenCompromised();
  }
}
