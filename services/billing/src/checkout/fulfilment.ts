import type { Member } from '../support/member-scope.js';

/** One item of a checkout body as the member sent it (`{item_type, item_key, item_resource, promo}`). */
export interface ItemRequest {
  itemType: string;
  itemKey: string;
  /** The resource key the item belongs to; '' for the header resource. */
  itemResource: string;
  promo: string;
}

/** An item priced by its fulfilment, before any promo. Money in the currency's minor units. */
export interface PricedItem {
  itemType: string;
  itemKey: string;
  /** The item's own ID (a Pricing ID for `subscription`); the purchase's `item_id`. */
  itemId: number;
  title: string;
  price: number;
  currency: string;
  /**
   * What the fulfilment needs later to grant the item, decided now (a membership's autorenew).
   * Stored on the purchase, so that a fulfilment after a webhook needs no member context.
   */
  terms: Record<string, unknown>;
}

/** Who a fulfilment acts for after the payment: the transaction's member and resource. */
export interface FulfilmentTarget {
  resourceId: number;
  userId: number;
  transactionId: number;
  /** The checkout's claim key: what `reserve` held under. */
  claimKey: string;
}

/**
 * One item type of checkout (docs/adr/0142): the seam through which other areas sell through
 * billing. Billing calls, per item: `price` (quote), `reserve` (before any charge), then either
 * `fulfil` (after the payment succeeded) or `release` (after it failed). Every method may be
 * called again for the same item and claim key (a retried request, a resumed checkout, a
 * webhook): each must be idempotent. Errors are the item's own 409s (ServiceError); anything
 * else is a failure of the checkout.
 */
export interface Fulfilment {
  /** The `item_type` value clients send. */
  readonly itemType: string;
  /** Prices the item for the member; throws when it cannot be bought (unknown, inactive, not for sale). */
  price(member: Member, item: ItemRequest): Promise<PricedItem>;
  /**
   * Holds what the purchase needs (a seat, a ticket, the right to buy this membership) under
   * `claimKey`, before any money moves; throws when it is not available. A second call with the
   * same claim key keeps the same hold.
   */
  reserve(member: Member, item: PricedItem, claimKey: string): Promise<void>;
  /** Grants the paid item; returns what it granted (a membership ID). Idempotent by target and item. */
  fulfil(target: FulfilmentTarget, item: PricedItem): Promise<number>;
  /** Gives back what `reserve` held (the payment failed or was abandoned). Idempotent. */
  release(target: Pick<FulfilmentTarget, 'resourceId' | 'userId' | 'claimKey'>, item: Pick<PricedItem, 'itemId'>): Promise<void>;
}

/** The item types checkout sells, by `item_type`. */
export class FulfilmentRegistry {
  private readonly byType = new Map<string, Fulfilment>();

  constructor(fulfilments: Fulfilment[]) {
    for (const fulfilment of fulfilments) this.byType.set(fulfilment.itemType, fulfilment);
  }

  get(itemType: string): Fulfilment | undefined {
    return this.byType.get(itemType);
  }

  get types(): string[] {
    return [...this.byType.keys()];
  }
}
