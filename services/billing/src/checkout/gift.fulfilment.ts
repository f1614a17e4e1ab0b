import type { ServiceClient } from '@masthead/core/grpc';
import type { PricingsServiceService } from '@masthead/proto/catalog/pricings';
import type { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import type { Member } from '../support/member-scope.js';
import { invalidItemKey } from './checkout.errors.js';
import {
  purchaseKeyOf,
  type Fulfilment,
  type FulfilmentTarget,
  type ItemRequest,
  type PricedItem,
  type RevocationReason,
} from './fulfilment.js';
import { pricingFor, pricingTitle } from './pricing.fulfilment.js';

/** What clients send as `item_type` for a membership bought for someone else. */
export const GIFT_ITEM = 'gift';

interface Deps {
  pricings: ServiceClient<typeof PricingsServiceService>;
  sponsorships: ServiceClient<typeof SponsorshipsServiceService>;
}

/**
 * The `gift` item (docs/adr/0142, 0156, 0158): a Pricing of type `gift`, bought by the sponsor
 * for one recipient. Fulfilled by community's sponsorship (one slot of one seat) under the line's
 * purchase key, so a retry answers the same sponsorship; the recipient gets the membership when
 * they activate the slot's code. Nothing is held: a sponsor may buy any number of gifts.
 */
export class GiftFulfilment implements Fulfilment {
  readonly itemType = GIFT_ITEM;

  constructor(private readonly deps: Deps) {}

  /** An active `gift` Pricing of an active plan of the resource; the sponsor pays for renewals when it autorenews. */
  async price(member: Member, item: ItemRequest): Promise<PricedItem> {
    const pricing = await pricingFor(this.deps.pricings, member, item);
    if (pricing.type !== GIFT_ITEM) throw invalidItemKey();
    return {
      itemType: GIFT_ITEM,
      itemKey: String(pricing.id),
      itemId: pricing.id,
      title: pricingTitle(pricing),
      price: pricing.price,
      currency: pricing.currency,
      terms: { autorenew: member.settings.defaultAutorenew, is_paying_by_sponsor: true },
      pricingId: pricing.id,
    };
  }

  async reserve(): Promise<void> {}

  /** The sponsorship with its slot; answers its ID (the purchase's granted ID). */
  async fulfil(target: FulfilmentTarget, item: PricedItem): Promise<number> {
    const sponsorship = await this.deps.sponsorships.createSponsorship({
      resourceId: target.resourceId,
      sponsorId: target.userId,
      pricingId: item.itemId,
      purchaseKey: purchaseKeyOf(target.claimKey, target.line),
      slots: 1,
      seatsPerSlot: 1,
      title: '',
      description: '',
      isPayingBySponsor: item.terms['is_paying_by_sponsor'] !== false,
      autorenew: item.terms['autorenew'] !== false,
    });
    return sponsorship.id;
  }

  async release(): Promise<void> {}

  /** The sponsorship goes, and its recipients' memberships end (community; docs/adr/0234). */
  async revoke(target: FulfilmentTarget, _grantedId: number | null, reason: RevocationReason): Promise<void> {
    await this.deps.sponsorships.revokeSponsorship({
      resourceId: target.resourceId,
      purchaseKey: purchaseKeyOf(target.claimKey, target.line),
      reason,
    });
  }
}
