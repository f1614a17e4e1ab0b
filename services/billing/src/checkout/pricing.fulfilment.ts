import { isServiceError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import type { Pricing } from '@masthead/proto/catalog';
import type { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import type { PricingsServiceService } from '@masthead/proto/catalog/pricings';
import type { Member } from '../support/member-scope.js';
import { alreadySubscribed, invalidItemKey, purchaseInProgress } from './checkout.errors.js';
import {
  itemIdOf,
  type Fulfilment,
  type FulfilmentTarget,
  type ItemRequest,
  type PricedItem,
  type ReleaseTarget,
  type RevocationReason,
} from './fulfilment.js';
import type { HoldIsStale, HoldRepository } from './hold.repository.js';

/**
 * The Pricing an item's key names: any active Pricing of an active plan of the resource (private
 * ones too: a direct link sells them). 409 invalid_item_key when there is none.
 */
export async function pricingFor(
  pricings: ServiceClient<typeof PricingsServiceService>,
  member: Member,
  item: ItemRequest,
): Promise<Pricing> {
  const pricingId = itemIdOf(item.itemKey);
  if (pricingId <= 0) throw invalidItemKey();
  try {
    return await pricings.getPricing({ resourceId: member.resourceId, pricingId }, { idempotent: true });
  } catch (error) {
    if (isServiceError(error) && error.code === 'subscription_not_found') throw invalidItemKey();
    throw error;
  }
}

/** What clients send as `item_type` for a Pricing: the API calls a Pricing a "subscription". */
export const SUBSCRIPTION_ITEM = 'subscription';

/** How a Pricing is named on purchases and invoices: `<plan>: <pricing>`. */
export const pricingTitle = (pricing: Pick<Pricing, 'title' | 'plan'>): string =>
  pricing.plan?.title ? `${pricing.plan.title}: ${pricing.title}` : pricing.title;

/** A membership sold by checkout: told to renewals once granted (docs/adr/0145). */
export interface SoldMembership {
  resourceId: number;
  userId: number;
  membershipId: number;
  pricingId: number;
  transactionId: number;
  autorenew: boolean;
  /** The membership's end date (ISO 8601); absent for an open-ended one. */
  endDate?: string;
}

interface Deps {
  pricings: ServiceClient<typeof PricingsServiceService>;
  memberships: ServiceClient<typeof MembershipsServiceService>;
  holds: HoldRepository;
  isStale: HoldIsStale;
  /** Called once a membership is granted (renewals track paid ones). */
  onGranted?: (sold: SoldMembership) => Promise<void>;
}

/** A grant in flight takes a few writes: poll it for up to about a second. */
const PENDING_ATTEMPTS = 10;
const PENDING_POLL_MS = 100;

const holdId = (resourceId: number, userId: number, pricingId: number) => `${resourceId}:${userId}:${SUBSCRIPTION_ITEM}:${pricingId}`;

/**
 * The `subscription` item: a `standard` Pricing of the request's resource, bought for the member
 * (docs/adr/0142). Catalog keeps the membership; this asks it through its RPCs.
 */
export class PricingFulfilment implements Fulfilment {
  readonly itemType = SUBSCRIPTION_ITEM;

  constructor(private readonly deps: Deps) {}

  /**
   * Any active Pricing of an active plan of the resource (private ones too: a direct link sells
   * them, as GET /subscriptions/{id} shows them) whose type is `standard`. Autorenew follows the
   * resource's `default_autorenewal_subscription` (default true).
   */
  async price(member: Member, item: ItemRequest): Promise<PricedItem> {
    const pricing = await pricingFor(this.deps.pricings, member, item);
    if ((pricing.type || 'standard') !== 'standard') throw invalidItemKey();
    return {
      itemType: SUBSCRIPTION_ITEM,
      itemKey: String(pricing.id),
      itemId: pricing.id,
      title: pricingTitle(pricing),
      price: pricing.price,
      currency: pricing.currency,
      terms: { autorenew: member.settings.defaultAutorenew },
      pricingId: pricing.id,
    };
  }

  /**
   * 409 purchase_in_progress while another checkout buys it; 409 already_subscribed for a member
   * who holds it. The hold comes first: a checkout releases it only once its membership exists,
   * so the check after it cannot miss a purchase that just completed.
   */
  async reserve(member: Member, item: PricedItem, claimKey: string): Promise<void> {
    const id = holdId(member.resourceId, member.userId, item.itemId);
    if (!(await this.deps.holds.hold(id, claimKey, this.deps.isStale))) throw purchaseInProgress();
    const held = await this.deps.memberships.listMemberships(
      { resourceId: member.resourceId, userId: member.userId, includeHistory: false },
      { idempotent: true },
    );
    if (held.items.some((membership) => membership.active && membership.pricing?.id === item.itemId)) {
      await this.deps.holds.release(id, claimKey);
      throw alreadySubscribed();
    }
  }

  /**
   * GrantMembership is idempotent (a member holding the Pricing gets that membership back); a
   * concurrent completion of the same checkout (a retry, a webhook) may be granting it right now
   * (409 membership_pending): wait for it, briefly.
   */
  async fulfil(target: FulfilmentTarget, item: PricedItem): Promise<number> {
    const autorenew = item.terms['autorenew'] !== false;
    const request = { resourceId: target.resourceId, userId: target.userId, pricingId: item.itemId, autorenew, source: 'purchase' };
    let membership;
    for (let attempt = 1; ; attempt++) {
      try {
        membership = await this.deps.memberships.grantMembership(request);
        break;
      } catch (error) {
        if (!isServiceError(error) || error.code !== 'membership_pending' || attempt >= PENDING_ATTEMPTS) throw error;
        await new Promise((resolve) => setTimeout(resolve, PENDING_POLL_MS));
      }
    }
    await this.deps.onGranted?.({
      resourceId: target.resourceId,
      userId: target.userId,
      membershipId: membership.id,
      pricingId: item.itemId,
      transactionId: target.transactionId,
      autorenew,
      endDate: membership.subscriptionEndDate,
    });
    await this.release(target, item);
    return membership.id;
  }

  release(target: ReleaseTarget, item: Pick<PricedItem, 'itemId'>): Promise<void> {
    return this.deps.holds.release(holdId(target.resourceId, target.userId, item.itemId), target.claimKey);
  }

  /** Ends the membership the line granted (catalog's EndMembership: once, with the reason); a line not granted has none. */
  async revoke(target: FulfilmentTarget, grantedId: number | null, reason: RevocationReason): Promise<void> {
    if (!grantedId) return;
    try {
      await this.deps.memberships.endMembership({ resourceId: target.resourceId, userId: target.userId, membershipId: grantedId, reason });
    } catch (error) {
      // A membership catalog does not have (any more) has nothing left to end.
      if (!isServiceError(error) || error.status !== 404) throw error;
    }
  }
}
