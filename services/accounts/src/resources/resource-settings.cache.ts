import { TtlCache } from '@masthead/core/cache';
import { onEvent, type NatsLink } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ResourceService } from './resource.service.js';

/**
 * Resources' own settings for the localization reads, kept per process: GET /countries and
 * GET /currency consult them on every request. Whichever replica writes a resource announces
 * `resource_updated`, which drops the copy here; the TTL bounds staleness when an announcement
 * is missed.
 */
export class ResourceSettingsCache {
  private readonly settings: TtlCache<number, Record<string, unknown>>;

  constructor(private readonly deps: { resources: Pick<ResourceService, 'get'>; ttlMs: number }) {
    this.settings = new TtlCache(deps.ttlMs);
  }

  listen(nats: NatsLink, logger: Logger): void {
    onEvent(nats, 'resource_updated', logger, (event) => {
      if (typeof event.resource_id === 'number') this.settings.delete(event.resource_id);
      else this.settings.clear();
    });
  }

  /** The resource's own settings; 404 resource_not_exists when unknown. */
  get(resourceId: number): Promise<Record<string, unknown>> {
    return this.settings.getOrLoad(resourceId, async () => (await this.deps.resources.get(resourceId)).settings ?? {});
  }
}
