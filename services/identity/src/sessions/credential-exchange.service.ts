import { tokenCompromised } from '@masthead/core/errors';
import type { SessionRepository } from './session.repository.js';
import type { SessionRecord } from './session.schema.js';
import type { IssuedSession, SessionService } from './session.service.js';
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

/**
 * Exchanges one-time secrets (refresh records, authorization codes) for new credentials of the
 * same session. A refresh record replayed after it was consumed means it leaked: the whole
 * session family is marked compromised (docs/adr/0004).
 */
export class CredentialExchange {
  constructor(
    private readonly repository: SessionRepository,
    private readonly sessions: SessionService,
  ) {}

  async refresh(command: RefreshCommand): Promise<IssuedSession> {
    const tokenHash = hashToken(command.refreshToken);
    const record = await this.repository.findRefreshToken(tokenHash);
    if (!record || record.expires_at.getTime() <= Date.now()) throw refreshFailed();
    if (command.resourceId && record.resource_id !== command.resourceId) throw refreshFailed();
    const session = await this.repository.findSession(record.session_id);
    if (session?.compromised_at) throw tokenCompromised();
    if (!isLive(session)) throw refreshFailed();
    // The claim is the record of use: it decides between concurrent uses, and any later use
    // (the loser, or a replay) finds it taken. A kept (reusable) record is never claimed.
    if (!command.reusable && !(await this.repository.claimUse(`refresh:${tokenHash}`))) return this.replayed(session);
    return this.sessions.rotate(session, command.reusable ? command.refreshToken : null);
  }

  async exchangeCode(command: CodeExchangeCommand): Promise<IssuedSession> {
    const codeHash = hashToken(command.code);
    const record = await this.repository.findAuthCode(codeHash);
    if (!record || record.used_at || record.expires_at.getTime() <= Date.now()) throw invalidGrant();
    if (record.resource_id !== command.resourceId || record.redirect_uri !== command.redirectUri) throw invalidGrant();
    if (!(await this.repository.claimUse(`code:${codeHash}`))) throw invalidGrant();
    await this.repository.markAuthCodeUsed(codeHash);
    const session = await this.repository.findSession(record.session_id);
    if (!isLive(session)) throw invalidGrant();
    return this.sessions.rotate(session, null);
  }

  private async replayed(session: SessionRecord): Promise<never> {
    await this.sessions.markCompromised(session);
    throw tokenCompromised();
  }
}
