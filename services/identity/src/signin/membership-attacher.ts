import type { ServiceClient } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { Resource } from '@masthead/proto/accounts';
import type { CatalogServiceService } from '@masthead/proto/catalog';

/**
 * Gives a member who joins a resource its configured default membership
 * (`default_subscription_id`). The membership is a bonus of joining: a catalog failure is logged
 * and does not fail the sign-in.
 */
export class MembershipAttacher {
  constructor(
    private readonly catalog: ServiceClient<typeof CatalogServiceService>,
    private readonly logger: Logger,
  ) {}

  async attachDefault(resource: Resource, userId: number, requestId: string): Promise<void> {
    const pricingId = Number(resource.settings?.['default_subscription_id'] ?? 0);
    if (!Number.isSafeInteger(pricingId) || pricingId <= 0) return;
    try {
      await this.catalog.attachDefaultMembership({ resourceId: resource.id, userId, pricingId }, { requestId, idempotent: true });
    } catch (error) {
      this.logger.warn({ err: error, user_id: userId, resource_id: resource.id }, 'default membership not attached');
    }
  }
}
