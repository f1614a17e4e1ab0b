import type { Logger } from '@masthead/core/logging';
import type { Resource } from '@masthead/proto/accounts';
import type { ClientOf } from '@masthead/core/clients';

/**
 * How a member came to join the resource: by registering in it, or as a guest of it (signing in
 * with an account made elsewhere, or through a linked provider identity).
 */
export type JoinPath = 'registration' | 'guest';

export interface MembershipAttacherDeps {
  memberships: ClientOf<'memberships'>;
  logger: Logger;
}

/**
 * Gives a member who joins a resource its configured default membership (ADR 0015):
 * `default_guest_subscription_id` for a guest when set, else `default_subscription_id`; with
 * `single_subscription` only when the member holds no other active membership there. The
 * membership is a bonus of joining: a catalog failure is logged and does not fail the sign-in.
 */
export class MembershipAttacher {
  constructor(private readonly deps: MembershipAttacherDeps) {}

  async attachDefault(resource: Resource, userId: number, path: JoinPath): Promise<void> {
    const pricingId = defaultPricingOf(resource, path);
    if (pricingId === null) return;
    const singleSubscription = resource.settings?.['single_subscription'] === true;
    try {
      await this.deps.memberships.attachDefaultMembership(
        { resourceId: resource.id, userId, pricingId, singleSubscription },
        { idempotent: true },
      );
    } catch (error) {
      this.deps.logger.warn({ err: error, user_id: userId, resource_id: resource.id }, 'default membership not attached');
    }
  }
}

function defaultPricingOf(resource: Resource, path: JoinPath): number | null {
  const settings = resource.settings ?? {};
  const guestPricing = path === 'guest' ? pricingIdOf(settings['default_guest_subscription_id']) : null;
  return guestPricing ?? pricingIdOf(settings['default_subscription_id']);
}

/** A setting holds a positive integer ID, possibly as a string; anything else means "none". */
function pricingIdOf(value: unknown): number | null {
  const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : 0;
  return Number.isSafeInteger(id) && id > 0 ? id : null;
}
