import { TtlCache } from '@masthead/core/cache';
import { onEvent } from '@masthead/core/events';
import type { ServiceClient } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { AccountsServiceService, Resource } from '@masthead/proto/accounts';
import type { NatsConnection } from 'nats';

/** Resources by ID, read from the accounts service and cached until `resource_updated`. */
export class ResourceDirectory {
  private readonly cache: TtlCache<number, Resource>;

  constructor(
    private readonly accounts: ServiceClient<typeof AccountsServiceService>,
    ttlMs: number,
  ) {
    this.cache = new TtlCache(ttlMs);
  }

  listen(nats: NatsConnection, logger: Logger): void {
    onEvent(nats, 'resource_updated', logger, (event) => {
      if (typeof event.resource_id === 'number') this.cache.delete(event.resource_id);
    });
  }

  get(id: number): Promise<Resource> {
    return this.cache.getOrLoad(id, () => this.accounts.getResource({ id }, { idempotent: true }));
  }
}
