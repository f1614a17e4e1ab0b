import { invalidConnectCode, invalidConnectState } from '@masthead/core/errors';
import { isCardProviderFailure } from '../card-provider/card-provider.js';
import { authorizeUrl, ConnectCodeRejected, type ConnectOAuthFactory } from '../card-provider/connect-oauth.js';
import type { BillingConfig } from '../config.js';
import type { ProviderWriteLedger } from '../provider-writes/provider-write.ledger.js';
import type { Member } from '../support/member-scope.js';
import type { ConnectStateRepository, StateBinding } from './connect-state.repository.js';
import { cardProviderClientIdMissing, cardProviderConnectError, cardProviderKeyMissing } from './connection.errors.js';
import type { ConnectionRepository } from './connection.repository.js';
import type { ConnectedAccountRecord, ProviderMode } from './connection.schema.js';
import type { ConnectionService } from './connection.service.js';

/**
 * How long a connect state stays usable: the admin's round trip through the provider's
 * authorize page (sign-in, perhaps account creation). Short, so that a leaked link dies soon.
 */
export const CONNECT_STATE_TTL_MS = 15 * 60 * 1000;

export interface ConnectGuidance {
  mode: ProviderMode;
  clientId: string;
  authorizeUrl: string;
  state: string;
  stateExpiresAt: Date;
  connectedAccount: ConnectedAccountRecord | null;
}

interface Deps {
  connections: ConnectionService;
  rows: ConnectionRepository;
  states: ConnectStateRepository;
  ledger: ProviderWriteLedger;
  oauth: ConnectOAuthFactory;
  config: Pick<BillingConfig, 'CARDPROVIDER_CONNECT_BASE'>;
}

const bindingOf = (admin: Member): StateBinding => ({ resourceId: admin.resourceId, mode: admin.settings.mode, userId: admin.userId });

/** Provider failures other than a refused code: the operation's 409, with the provider's message. */
function asConnectError(error: unknown): unknown {
  return isCardProviderFailure(error) ? cardProviderConnectError(error.message) : error;
}

/**
 * The integration-admin operations on a resource's card-provider connection (document 1 D,
 * docs/adr/0126): connect OAuth of standard accounts, acting with the resource's base secret key
 * for its mode (the platform's key). The gateway has checked the admin, user and resource.
 */
export class ConnectService {
  constructor(private readonly deps: Deps) {}

  /** A fresh single-use state and the authorize URL that carries it, plus the current account. */
  async guidance(admin: Member): Promise<ConnectGuidance> {
    const { mode } = admin.settings;
    await this.platformKey(admin.resourceId, mode);
    const record = await this.deps.rows.find(admin.resourceId, mode);
    const clientId = record?.client_id;
    if (!clientId) throw cardProviderClientIdMissing(mode);
    const binding = bindingOf(admin);
    await this.deps.states.dropExpired(binding);
    const { state, expiresAt } = await this.deps.states.issue(binding, CONNECT_STATE_TTL_MS);
    return {
      mode,
      clientId,
      authorizeUrl: authorizeUrl(this.deps.config, clientId, state),
      state,
      stateExpiresAt: expiresAt,
      connectedAccount: record.connected_account ?? null,
    };
  }

  /**
   * Exchanges `code` once per state (the provider-write ledger, keyed by the state's hash): a
   * concurrent duplicate waits for the first and answers its account; the provider never sees a
   * code twice from us (it would revoke what the code granted). The state is spent once the
   * account is recorded.
   */
  async exchange(admin: Member, code: string, state: string): Promise<ConnectedAccountRecord> {
    const { resourceId, mode } = { resourceId: admin.resourceId, mode: admin.settings.mode };
    const platformKey = await this.platformKey(resourceId, mode);
    const stateId = await this.deps.states.live(state, bindingOf(admin));
    if (!stateId) throw invalidConnectState();
    const key = `masthead:${resourceId}:cardprovider-connect:${mode}:${stateId}:v1`;
    await this.deps.ledger.once(key, {
      find: async () => {
        const account = (await this.deps.rows.find(resourceId, mode))?.connected_account;
        return account?.connect_key === key ? account.account_id : null;
      },
      create: async () => {
        const grant = await this.deps
          .oauth(platformKey)
          .exchange(code, key)
          .catch((error: unknown) => {
            throw error instanceof ConnectCodeRejected ? invalidConnectCode() : asConnectError(error);
          });
        await this.deps.rows.setConnectedAccount(resourceId, mode, {
          account_id: grant.accountId,
          livemode: grant.livemode,
          scope: grant.scope,
          publishable_key: grant.publishableKey,
          tokens: this.deps.connections.sealConnectTokens(resourceId, mode, {
            access_token: grant.accessToken,
            refresh_token: grant.refreshToken,
          }),
          connect_key: key,
          connected_at: new Date(),
          connected_by: admin.userId,
        });
        return grant.accountId;
      },
    });
    await this.deps.states.spend(stateId);
    const account = (await this.deps.rows.find(resourceId, mode))?.connected_account;
    // Cleared by a concurrent DELETE between the record and this read: the exchange still happened.
    if (!account) throw cardProviderConnectError('the connection was cleared meanwhile');
    return account;
  }

  /**
   * Deauthorizes the recorded connected account on the provider, only when one is recorded, then
   * forgets it. The client ID stays (it is the operator's setting, needed to connect again). An
   * account the provider no longer connects to us is forgotten too (`deauthorized: false`); any
   * other provider failure keeps the record, so that a retry deauthorizes.
   */
  async clear(admin: Member): Promise<{ deauthorized: boolean; accountId: string }> {
    const { resourceId, mode } = { resourceId: admin.resourceId, mode: admin.settings.mode };
    const platformKey = await this.platformKey(resourceId, mode);
    const record = await this.deps.rows.find(resourceId, mode);
    const account = record?.connected_account;
    if (!account) return { deauthorized: false, accountId: '' };
    if (!record.client_id) throw cardProviderClientIdMissing(mode);
    // Deauthorizing is naturally idempotent (a repeat answers "not connected"); the key still
    // names the write for the provider's own dedupe.
    const key = `masthead:${resourceId}:cardprovider-connect:${mode}:deauthorize:${account.account_id}:v1`;
    const deauthorized = await this.deps
      .oauth(platformKey)
      .deauthorize(record.client_id, account.account_id, key)
      .catch((error: unknown) => {
        throw asConnectError(error);
      });
    await this.deps.rows.clearConnectedAccount(resourceId, mode, account.account_id);
    return { deauthorized, accountId: account.account_id };
  }

  /** The base private key of (resource, mode): document 1 D's precondition of admin operations. */
  private async platformKey(resourceId: number, mode: ProviderMode): Promise<string> {
    const key = await this.deps.connections.secretKey(resourceId, mode);
    if (!key) throw cardProviderKeyMissing(mode);
    return key;
  }
}
