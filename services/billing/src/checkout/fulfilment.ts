import { isServiceError, ticketsSoldOut, type ErrorConstructor, type ServiceError } from '@masthead/core/errors';
import type { Member } from '../support/member-scope.js';

/** One item of a checkout body as the member sent it (`{item_type, item_key, item_resource, promo}`). */
export interface ItemRequest {
  itemType: string;
  itemKey: string;
  /** The resource key the item belongs to; '' for the header resource. */
  itemResource: string;
  promo: string;
  /** Units to buy: counts for `ti_ticket` only (1 when absent, -1 when not a whole number). */
  quantity: number;
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
  /** The Pricing the item sells, for promo codes limited to Pricings; absent for items that are no Pricing (tickets). */
  pricingId?: number;
}

/** Who a fulfilment acts for after the payment: the transaction's member and resource. */
export interface FulfilmentTarget {
  resourceId: number;
  userId: number;
  transactionId: number;
  /** The checkout's claim key: what `reserve` held under. */
  claimKey: string;
  /** The item's line in the checkout (0-based): with the claim key, the purchase line's own key. */
  line: number;
}

/** An `item_key` naming a record by its integer ID (digits, as text or a number); 0 when it names none. */
export const itemIdOf = (itemKey: string): number => (/^\d{1,9}$/.test(itemKey.trim()) ? Number(itemKey.trim()) : 0);

/**
 * A purchase line's own key, derived from billing's record of the checkout (the transaction's
 * unique key) and the line: what community keys a ticket reservation or a sponsorship by, so
 * that a retry, a resumed checkout or a crash names the same one (docs/adr/0142).
 */
export const purchaseKeyOf = (claimKey: string, line: number): string => `${claimKey}:${line}`;

/**
 * One item type of checkout (docs/adr/0142): the seam through which other areas sell through
 * billing. Billing calls, per item: `price` (quote), `reserve` (before any charge), then either
 * `fulfil` (after the payment succeeded) or `release` (after it failed), and `revoke` when the
 * paid line is refunded or its dispute lost. Every method may be
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
   * same claim key keeps the same hold. `line` is the item's line in the checkout.
   */
  reserve(member: Member, item: PricedItem, claimKey: string, line: number): Promise<void>;
  /**
   * Grants the paid item; returns what it granted (a membership ID). Idempotent by target and
   * item. Throws an `unfulfillable` answer only when the item can never be granted for this
   * purchase line any more (checkout then refunds the line, docs/adr/0201).
   */
  fulfil(target: FulfilmentTarget, item: PricedItem): Promise<number>;
  /** Gives back what `reserve` held (the payment failed or was abandoned). Idempotent. */
  release(target: ReleaseTarget, item: Pick<PricedItem, 'itemId'>): Promise<void>;
  /**
   * Takes back what `fulfil` granted for the line (`grantedId`, null when it granted nothing
   * yet), which was refunded or whose dispute was lost (docs/adr/0234), and closes it so that no
   * later `fulfil` grants it. Idempotent: a repeat takes nothing back twice.
   */
  revoke(target: FulfilmentTarget, grantedId: number | null, reason: RevocationReason): Promise<void>;
}

/** Why a paid line's grant is taken back: catalog's and community's words (docs/adr/0234). */
export type RevocationReason = 'refunded' | 'disputed';

/**
 * The answers of `fulfil` that say a paid line can never be granted, by code: a ticket whose units
 * went to others while the payment settled late (docs/adr/0157, 0201). Nothing else counts: an
 * outage or a refused grant may pass, and money is given back only for what is surely gone.
 */
const UNFULFILLABLE: ReadonlyMap<string, ErrorConstructor> = new Map([[ticketsSoldOut.definition.code, ticketsSoldOut]]);

/** The code when `error` says the line can never be granted; else null. */
export const unfulfillable = (error: unknown): string | null =>
  isServiceError(error) && UNFULFILLABLE.has(error.code) ? error.code : null;

/** What a checkout with a line that was never granted answers (the code recorded on the purchase). */
export const unfulfilledAnswer = (code: string): ServiceError => (UNFULFILLABLE.get(code) ?? ticketsSoldOut)();

/** What `release` needs: no transaction may exist yet (a reservation that failed). */
export type ReleaseTarget = Pick<FulfilmentTarget, 'resourceId' | 'userId' | 'claimKey' | 'line'>;

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
