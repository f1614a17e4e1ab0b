import type { AccountsServiceService, Resource } from '@masthead/proto/accounts';
import { TtlCache } from '../cache/index.js';
import { ServiceError } from '../errors/index.js';
import { onEvent, type NatsLink } from '../events/index.js';
import type { ServiceClient } from '../grpc/index.js';
import type { Logger } from '../logging/index.js';

type AccountsClient = ServiceClient<typeof AccountsServiceService>;

export interface ResourceDirectoryDeps {
  /** Only the three reads of resources: the directory never writes. */
  accounts: Pick<AccountsClient, 'getResource' | 'resolveResource' | 'listAllowedOrigins'>;
  /** How long a copy may serve when no `resource_updated` arrives (config RESOURCE_CACHE_TTL_MS). */
  ttlMs: number;
}

/**
 * Resources as the accounts service owns them, cached per process for the gateway (by public
 * key) and identity (by ID). `listen` drops cached copies when accounts announces a change; the
 * TTL bounds staleness when an announcement is missed.
 */
export class ResourceDirectory {
  private readonly byId: TtlCache<number, Resource>;
  /** Unknown keys are cached too (as null), briefly, so a bad key costs no call. */
  private readonly byKey: TtlCache<string, Resource | null>;
  private readonly origins: TtlCache<'all', string[]>;

  constructor(private readonly deps: ResourceDirectoryDeps) {
    this.byId = new TtlCache(deps.ttlMs);
    this.byKey = new TtlCache(deps.ttlMs);
    this.origins = new TtlCache(deps.ttlMs);
  }

  /** Drops cached copies when the accounts service announces a change. */
  listen(nats: NatsLink, logger: Logger): void {
    onEvent(nats, 'resource_updated', logger, (event) => {
      if (typeof event.resource_id === 'number') this.byId.delete(event.resource_id);
      this.byKey.delete(event.payload.public_key);
      // A changed key leaves the old one cached under its old name.
      this.byKey.deleteWhere((resource) => resource?.id === event.resource_id);
      this.origins.clear();
    });
  }

  /** A resource by ID; rejects with NOT_FOUND (404) when unknown. */
  get(id: number): Promise<Resource> {
    return this.byId.getOrLoad(id, () => this.deps.accounts.getResource({ id }, { idempotent: true }));
  }

  /** The active resource for a public key, or null when none exists. */
  resolve(publicKey: string): Promise<Resource | null> {
    return this.byKey.getOrLoad(publicKey, async () => {
      try {
        return await this.deps.accounts.resolveResource({ publicKey }, { idempotent: true });
      } catch (error) {
        if (error instanceof ServiceError && error.status === 404) return null;
        throw error;
      }
    });
  }

  /** Every origin some resource allows, for preflight requests (which carry no resource key). */
  allowedOrigins(): Promise<string[]> {
    return this.origins.getOrLoad('all', async () => (await this.deps.accounts.listAllowedOrigins({}, { idempotent: true })).origins);
  }
}
