import type { Logger } from '@masthead/core/logging';
import { cardProviderKeyMissing, invalidClientId, invalidMode, invalidSecretKey, noKeyRing } from './connection.errors.js';
import type { ConnectionRepository } from './connection.repository.js';
import type { ConnectionRecord, ProviderMode } from './connection.schema.js';
import { open, seal, SecretUnavailable, type KeyRing, type SealedSecret } from '@masthead/core/secrets';

/** The deployment's own connection (POST /account-requests-payment) is stored as resource 0. */
export const DEPLOYMENT_RESOURCE_ID = 0;

/** Secret (sk_) and restricted (rk_) keys; publishable keys (pk_) are not secrets and not enough. */
const SECRET_KEY = /^(sk|rk)_[A-Za-z0-9_]{1,250}$/;

export const parseMode = (mode: string): ProviderMode => {
  if (mode !== 'test' && mode !== 'live') throw invalidMode();
  return mode;
};

/** Connect client IDs as the provider issues them (test and live alike). */
const CLIENT_ID = /^ca_[A-Za-z0-9]{1,250}$/;

/** Binds a sealed value to its record, so that it cannot be replayed onto another one. */
const aadOf = (resourceId: number, mode: ProviderMode) => `cardprovider:${resourceId}:${mode}`;
/** The connected account's tokens: another value of the same record, so another binding. */
const tokensAadOf = (resourceId: number, mode: ProviderMode) => `cardprovider-connect:${resourceId}:${mode}`;

interface Deps {
  connections: ConnectionRepository;
  /** Null when no ring is configured (production without BILLING_SECRETS_KEYS). */
  ring: KeyRing | null;
  logger: Logger;
}

/**
 * A resource's card-provider secret keys, per mode (docs/adr/0120). The plaintext exists only in
 * memory while a provider call is being made; nothing here logs it or returns it on the wire.
 */
export class ConnectionService {
  constructor(private readonly deps: Deps) {}

  async setSecretKey(resourceId: number, modeText: string, secretKey: string): Promise<ConnectionRecord> {
    const mode = parseMode(modeText);
    const key = secretKey.trim();
    if (!SECRET_KEY.test(key)) throw invalidSecretKey();
    if (!this.deps.ring) throw noKeyRing();
    return this.deps.connections.save(resourceId, mode, seal(this.deps.ring, key, aadOf(resourceId, mode)), key.slice(-4));
  }

  /**
   * Sets the connect client ID of (resource, mode) (docs/adr/0126). The pair needs its secret
   * key first: the client ID belongs to the account that key acts for.
   */
  async setClientId(resourceId: number, modeText: string, clientId: string): Promise<ConnectionRecord> {
    const mode = parseMode(modeText);
    const id = clientId.trim();
    if (!CLIENT_ID.test(id)) throw invalidClientId();
    const record = await this.deps.connections.setClientId(resourceId, mode, id);
    if (!record) throw cardProviderKeyMissing(mode);
    return record;
  }

  /** Seals a connected account's tokens for (resource, mode); nothing else ever opens them today. */
  sealConnectTokens(resourceId: number, mode: ProviderMode, tokens: { access_token: string; refresh_token: string }): SealedSecret {
    if (!this.deps.ring) throw noKeyRing();
    return seal(this.deps.ring, JSON.stringify(tokens), tokensAadOf(resourceId, mode));
  }

  summary(resourceId: number, modeText: string): Promise<ConnectionRecord | null> {
    return this.deps.connections.find(resourceId, parseMode(modeText));
  }

  /**
   * The secret key of (resource, mode), or null when none is stored or it cannot be opened (a
   * key missing from the ring: logged by key ID, never with the value).
   */
  async secretKey(resourceId: number, mode: ProviderMode): Promise<string | null> {
    const record = await this.deps.connections.find(resourceId, mode);
    if (!record || !this.deps.ring) return null;
    try {
      return open(this.deps.ring, record.secret_key, aadOf(resourceId, mode));
    } catch (error) {
      if (!(error instanceof SecretUnavailable)) throw error;
      this.deps.logger.error({ resourceId, mode, keyId: record.secret_key.key_id }, error.message);
      return null;
    }
  }

  /**
   * Re-seals every record still sealed with an older key of the ring under the current key (run
   * at boot; the rotation procedure in docs/adr/0120). Returns how many were re-sealed.
   */
  async resealAll(): Promise<number> {
    const { connections, ring, logger } = this.deps;
    if (!ring) return 0;
    let count = 0;
    for (const record of await connections.listSealedWithOtherKeys(ring.current.id)) {
      try {
        const aad = aadOf(record.resource_id, record.mode);
        const tokens = record.connected_account?.tokens;
        const tokensAad = tokensAadOf(record.resource_id, record.mode);
        await connections.reseal(
          record,
          seal(ring, open(ring, record.secret_key, aad), aad),
          tokens ? seal(ring, open(ring, tokens, tokensAad), tokensAad) : undefined,
        );
        count++;
      } catch (error) {
        if (!(error instanceof SecretUnavailable)) throw error;
        logger.error({ resourceId: record.resource_id, mode: record.mode, keyId: record.secret_key.key_id }, error.message);
      }
    }
    return count;
  }
}
