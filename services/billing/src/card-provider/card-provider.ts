/**
 * What billing asks of the card provider (DESIGN.md "Providers": a small adapter interface with
 * one real implementation, stripe-card-provider.ts). Every write takes the idempotency key of
 * the local record it serves (docs/adr/0121) and tags the object with it in its metadata, so that
 * `find…ByKey` can tell whether an earlier attempt already wrote it: the local fake ignores the
 * Idempotency-Key header (docs/adr/0110). Every method throws CardProviderFailure on a provider
 * error, a refused key or a missed deadline (CARDPROVIDER_TIMEOUT_MS).
 */
export interface ProviderCustomer {
  id: string;
  email: string | null;
  /** The idempotency key billing tagged it with (KEY_METADATA); null for a customer made outside billing. */
  key: string | null;
  /** Legacy cards (sources) of a customer created from a token, oldest first. */
  cards: ProviderCard[];
}

export interface ProviderCard {
  id: string;
  brand: string;
  country: string;
  last4: string;
  expMonth: number;
  expYear: number;
}

export interface ProviderMethod {
  id: string;
  type: string;
  /** The provider customer it is attached to; null when attached to none. */
  customer: string | null;
  card: ProviderCard | null;
}

export interface NewCustomer {
  email: string;
  name: string;
  /** A provider token to create the customer's first card from (legacy creation). */
  source?: string;
}

export interface NewCharge {
  customer: string;
  amount: number;
  currency: string;
}

/**
 * A payment of one saved source: a provider payment (intent) for a payment method (`pm_…`), a
 * charge for a legacy card (`card_…`). `offSession` marks a charge made without the member
 * present (renewals).
 */
export interface NewPayment {
  customer: string;
  /** The provider ID of the source: `pm_…` or `card_…`. */
  source: string;
  amount: number;
  currency: string;
  offSession: boolean;
}

/** Where a payment stands on the provider, normalized over intents and charges. */
export interface ProviderPayment {
  /** `pi_…` for an intent, `ch_…` for a legacy charge. */
  id: string;
  status: 'succeeded' | 'requires_action' | 'processing' | 'failed' | 'canceled';
  /** The settled (or failed) charge, once there is one: refunds and disputes name it. */
  chargeId: string | null;
  /** What the client needs to finish a payment that requires action (3-D Secure); else null. */
  clientSecret: string | null;
  /** The provider's failure code and message of a failed payment. */
  failureCode: string | null;
  failureMessage: string | null;
  amount: number;
  amountRefunded: number;
  currency: string;
  /** The idempotency key billing tagged it with (KEY_METADATA): it names the transaction it pays; null when not billing's. */
  key: string | null;
}

/** A refund of part or all of a payment, in the payment's minor units. */
export interface NewRefund {
  /** The payment refunded: `pi_…` (an intent) or `ch_…` (a legacy charge), as ProviderPayment.id. */
  payment: string;
  amount: number;
}

export interface ProviderRefund {
  id: string;
  /** The charge it gives money back from. */
  chargeId: string | null;
  amount: number;
  status: string;
}

/** A setup intent as the provider holds it: whose customer it is, and which method it confirmed. */
export interface ProviderSetupIntent {
  id: string;
  customer: string | null;
  paymentMethod: string | null;
  status: string;
}

/** A provider token (legacy card flows): its card, and whether it was used already (tokens are single-use). */
export interface ProviderToken {
  id: string;
  cardId: string | null;
  used: boolean;
}

/** A dispute as the provider holds it now. */
export interface ProviderDispute {
  id: string;
  chargeId: string | null;
  paymentIntent: string | null;
  status: string;
}

/** A charge as refunds and disputes see it. */
export interface ProviderCharge {
  id: string;
  paymentIntent: string | null;
  amount: number;
  amountRefunded: number;
  refunded: boolean;
  disputed: boolean;
  status: string;
  /** Its refunds as the provider lists them now, oldest first; `key` is billing's, when billing made it. */
  refunds: Array<{ id: string; amount: number; created: Date; reason: string | null; key: string | null }>;
}

export interface CardProvider {
  createCustomer(customer: NewCustomer, key: string): Promise<ProviderCustomer>;
  /** The customer of `email` created with `key`, or null. */
  findCustomerByKey(email: string, key: string): Promise<ProviderCustomer | null>;
  /** A setup intent for off-session use; the provider object as sent (document 1: open object). */
  createSetupIntent(customer: string, key: string): Promise<Record<string, unknown>>;
  /** The method (or a card, which the provider also serves as a method) by its ID, or null when the provider has none. */
  retrieveMethod(id: string): Promise<ProviderMethod | null>;
  /** The setup intent by its ID, or null when the provider has none. */
  retrieveSetupIntent(id: string): Promise<ProviderSetupIntent | null>;
  attachMethod(id: string, customer: string, key: string): Promise<ProviderMethod>;
  /**
   * Detaches the method from `customer`; a method attached to no customer, or to another one, is
   * left as it is (docs/adr/0230). True when it detached.
   */
  detachMethod(id: string, customer: string, key: string): Promise<boolean>;
  /** A provider token (legacy flows): `cardId` is the card it will add. Throws CardProviderFailure when unknown. */
  retrieveToken(token: string): Promise<ProviderToken>;
  /** The customer by its provider ID, or null when the provider has none (or deleted it). */
  retrieveCustomer(id: string): Promise<ProviderCustomer | null>;
  /** Adds a legacy card (source) to the customer from a provider token. */
  addCard(customer: string, token: string, key: string): Promise<ProviderCard>;
  /** The customer's legacy cards (sources), oldest first. */
  listCards(customer: string): Promise<ProviderCard[]>;
  /** A charge of the customer's default source. */
  createCharge(charge: NewCharge, key: string): Promise<{ id: string; status: string }>;
  findChargeByKey(customer: string, key: string): Promise<{ id: string; status: string } | null>;
  /**
   * Creates and confirms a payment of a saved source. A decline throws CardProviderFailure with
   * the provider's code (`card_declined`…); "requires action" is an answer, not a failure.
   */
  createPayment(payment: NewPayment, key: string): Promise<ProviderPayment>;
  /** The payment of `customer` created with `key` (intent or charge), or null. */
  findPaymentByKey(customer: string, key: string): Promise<ProviderPayment | null>;
  /** The payment's current state by its ID (`pi_…` or `ch_…`). */
  retrievePayment(id: string): Promise<ProviderPayment>;
  retrieveCharge(id: string): Promise<ProviderCharge>;
  /** The dispute by its ID, or null when the provider has none. */
  retrieveDispute(id: string): Promise<ProviderDispute | null>;
  /** Gives `amount` of the payment back; more than is left throws CardProviderFailure. */
  createRefund(refund: NewRefund, key: string): Promise<ProviderRefund>;
  /** The refund of `payment` created with `key`, or null. */
  findRefundByKey(payment: string, key: string): Promise<ProviderRefund | null>;
}

/** The provider answered with an error, refused the key, or missed its deadline. */
export class CardProviderFailure extends Error {
  constructor(
    message: string,
    /** The provider's error code when it sent one (`card_declined`, `resource_missing`…). */
    readonly providerCode: string | null,
    readonly httpStatus: number | null,
  ) {
    super(message);
    this.name = 'CardProviderFailure';
  }
}

export const isCardProviderFailure = (error: unknown): error is CardProviderFailure => error instanceof CardProviderFailure;

/** Metadata field that carries the idempotency key on every object billing creates. */
export const KEY_METADATA = 'masthead_key';
