import type { PaymentOutcome, Quote } from '@masthead/proto/billing/checkout';
import type { Purchase, ResourceSummary, Transaction } from '@masthead/proto/billing/transactions';
import { SUBSCRIPTION_ITEM_TYPE } from '../handlers/checkout-items.js';

/** Billing's transactions and checkout answers → the JSON of document 2 G and ADR 0142. */

/** Where a transaction's stored receipt is downloaded (OPERATIONS.md 124). */
export const receiptDownloadLink = (id: number) => `/api/v1/user/transactions/${id}/receipt/download`;

/**
 * The transaction summary (document 1, "Transaction summary"): `id, status, amount, currency,
 * purchases [{id, item_type, item_id, amount}], receipt (with download_link) or null, refunds,
 * payment_source` or null, plus `pay_system`, `amount_refunded`, `error` and `created_at`
 * (docs/adr/0141). `card` appears when a card paid; `user` when an administrator reads another
 * member's transaction.
 */
export function serializeTransaction(transaction: Transaction, viewerId: number): Record<string, unknown> {
  const json: Record<string, unknown> = {
    id: transaction.id,
    status: transaction.status,
    amount: transaction.amount,
    amount_refunded: transaction.amountRefunded,
    currency: transaction.currency,
    pay_system: transaction.paySystem,
    purchases: transaction.purchases.map((purchase) => ({
      id: purchase.id,
      item_type: purchase.itemType,
      item_id: purchase.itemId,
      amount: purchase.amount,
    })),
    receipt: transaction.receipt
      ? {
          number: transaction.receipt.number,
          created_at: transaction.receipt.createdAt,
          download_link: receiptDownloadLink(transaction.id),
        }
      : null,
    refunds: transaction.refunds.map((refund) => ({
      id: refund.id,
      amount: refund.amount,
      reason: refund.reason || null,
      created_at: refund.createdAt,
    })),
    payment_source: transaction.paymentMethodId
      ? { source_type: 'payment-method', id: transaction.paymentMethodId }
      : transaction.userCardId
        ? { source_type: 'user-card', id: transaction.userCardId }
        : null,
    error: transaction.errorMessage || null,
    created_at: transaction.createdAt,
  };
  if (transaction.card) json['card'] = { brand: transaction.card.brand, last4: transaction.card.last4 };
  if (transaction.userId !== viewerId) json['user'] = { id: transaction.userId, email: transaction.memberEmail };
  return json;
}

/** POST /payment/calculate-price and /promo-validation: `{total_price, currency, purchases[]}`. */
export const serializeQuote = (quote: Quote): Record<string, unknown> => ({
  total_price: quote.totalPrice,
  currency: quote.currency,
  purchases: quote.purchases.map((item) => ({
    item_type: item.itemType,
    item_key: item.itemKey,
    item_id: item.itemId,
    title: item.title,
    price: item.price,
    discount: item.discount,
    amount: item.amount,
    currency: item.currency,
    promo: item.promo || null,
  })),
});

/**
 * POST /payment: the same `total_price` and `purchases[]` (each with its purchase `id`, and for a
 * subscription the granted membership as `user_subscription_id`), the transaction summary, and
 * the provider's `client_secret` when the payment requires action.
 */
export function serializePaymentOutcome(outcome: PaymentOutcome, viewerId: number): Record<string, unknown> {
  const transaction = outcome.transaction!;
  return {
    result: true,
    status: transaction.status,
    total_price: transaction.amount,
    currency: transaction.currency,
    purchases: transaction.purchases.map((purchase) => ({
      id: purchase.id,
      item_type: purchase.itemType,
      item_key: purchase.itemKey,
      item_id: purchase.itemId,
      title: purchase.title,
      price: purchase.price,
      discount: purchase.discount,
      amount: purchase.amount,
      currency: purchase.currency,
      promo: purchase.promoCode || null,
      ...(purchase.itemType === SUBSCRIPTION_ITEM_TYPE ? { user_subscription_id: purchase.fulfilledId || null } : {}),
    })),
    transaction: serializeTransaction(transaction, viewerId),
    client_secret: outcome.clientSecret || null,
  };
}

/** A resource list item (document 1 E: `{title, key, host}`). */
export const serializeResourceItem = (resource: ResourceSummary): Record<string, unknown> => ({
  title: resource.title,
  key: resource.key,
  host: resource.host ?? null,
});

/**
 * A purchase of the grouped read (docs/adr/0141): what a transaction that took money bought,
 * with its transaction.
 */
export const serializePurchase = (purchase: Purchase, transaction: Transaction): Record<string, unknown> => ({
  id: purchase.id,
  item_type: purchase.itemType,
  item_id: purchase.itemId,
  title: purchase.title,
  amount: purchase.amount,
  currency: purchase.currency,
  transaction_id: transaction.id,
  created_at: transaction.createdAt,
});

/**
 * An external transaction (document 2 I, GET external/transaction): `id, status, error, user_id,
 * user_card_id, payment_method_id, pay_system, currency, amount, amount_refunded`, the fee fields
 * (nothing is collected in-app: 0) and `livemode`; no external ID, data, purchases or timestamps.
 */
export const serializeExternalTransaction = (transaction: Transaction): Record<string, unknown> => ({
  id: transaction.id,
  status: transaction.status,
  error: transaction.errorMessage || null,
  user_id: transaction.userId,
  user_card_id: transaction.userCardId || null,
  payment_method_id: transaction.paymentMethodId || null,
  pay_system: transaction.paySystem,
  currency: transaction.currency,
  amount: transaction.amount,
  amount_refunded: transaction.amountRefunded,
  fee: 0,
  connect_fee: 0,
  processing_fee_payment: 0,
  processing_vat: 0,
  livemode: transaction.mode === 'live',
});
