import { createHash } from 'node:crypto';
import { TtlCache } from '@masthead/core/cache';
import { onEvent, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ResolveServiceKeyResponse } from '@masthead/proto/accounts/service_accounts';
import type { ServiceClients } from '../clients.js';

/**
 * Service-account key resolutions, cached briefly by the key's SHA-256 (the raw key is never a
 * cache key). Unknown keys are cached too, so that a bad key costs no call. A change to an
 * account (`service_account_updated`) drops its entry at once; a change to its user in identity
 * is seen within the TTL (ADR 0020).
 */
export class ServiceKeyResolver {
  private readonly cache: TtlCache<string, ResolveServiceKeyResponse>;

  constructor(
    private readonly serviceAccounts: ServiceClients['serviceAccounts'],
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  listen(nats: NatsLink, logger: Logger): void {
    onEvent(nats, 'service_account_updated', logger, (event) => {
      this.cache.deleteWhere((resolution) => resolution.account?.id === event.payload.service_account_id);
    });
  }

  resolve(key: string): Promise<ResolveServiceKeyResponse> {
    const hash = createHash('sha256').update(key, 'utf8').digest('hex');
    return this.cache.getOrLoad(hash, () => this.serviceAccounts.resolveServiceKey({ key }, { idempotent: true }));
  }
}
