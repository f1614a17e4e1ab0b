import { TtlCache } from '@masthead/core/cache';
import { ServiceError } from '@masthead/core/errors';
import { onEvent } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { Resource } from '@masthead/proto/accounts';
import type { NatsConnection } from 'nats';
import type { ServiceClients } from '../clients.js';

/** Resources by public key. Unknown keys are cached too, briefly, so a bad key costs no call. */
export class ResourceResolver {
  private readonly cache: TtlCache<string, Resource | null>;
  private readonly origins: TtlCache<'all', string[]>;

  constructor(
    private readonly accounts: ServiceClients['accounts'],
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
    this.origins = new TtlCache(ttlMs);
  }

  /** Drops cached copies when the accounts service announces a change. */
  listen(nats: NatsConnection, logger: Logger): void {
    onEvent(nats, 'resource_updated', logger, (event) => {
      const key = (event.payload as { public_key?: unknown }).public_key;
      if (typeof key === 'string') this.cache.delete(key);
      this.cache.deleteWhere((resource) => resource?.id === event.resource_id);
      this.origins.clear();
    });
  }

  /** The active resource for a key, or null when none exists. */
  resolve(publicKey: string): Promise<Resource | null> {
    return this.cache.getOrLoad(publicKey, async () => {
      try {
        return await this.accounts.resolveResource({ publicKey }, { idempotent: true });
      } catch (error) {
        if (error instanceof ServiceError && error.status === 404) return null;
        throw error;
      }
    });
  }

  /** Every origin some resource allows, for preflight requests (which carry no resource key). */
  allowedOrigins(): Promise<string[]> {
    return this.origins.getOrLoad('all', async () => (await this.accounts.listAllowedOrigins({}, { idempotent: true })).origins);
  }
}
