import type { Quote } from '@masthead/proto/billing/checkout';
import type { PromoCode } from '@masthead/proto/billing/promos';
import type { Resource } from '@masthead/proto/accounts';
import type { ResourceSummary, Transaction } from '@masthead/proto/billing/transactions';
import type { Quote as QuoteView } from '../checkout/checkout.service.js';
import type { PromoCodeRecord } from '../promos/promo.schema.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';

/** Transactions, quotes and promo codes → billing messages. The gateway shapes the JSON. */

const iso = (date: Date) => date.toISOString();

export const toTransaction = (record: TransactionRecord): Transaction => ({
  id: record._id,
  resourceId: record.resource_id,
  userId: record.user_id,
  kind: record.kind,
  status: record.status,
  paySystem: record.pay_system,
  mode: record.mode,
  amount: record.amount,
  amountRefunded: record.amount_refunded ?? 0,
  currency: record.currency,
  purchases: record.purchases.map((purchase) => ({
    id: purchase.id,
    itemType: purchase.item_type,
    itemId: purchase.item_id,
    itemKey: purchase.item_key,
    title: purchase.title,
    price: purchase.price,
    discount: purchase.discount,
    amount: purchase.amount,
    currency: purchase.currency,
    promoCode: purchase.promo_code ?? '',
    fulfilledId: purchase.fulfilled_id ?? 0,
  })),
  refunds: (record.refunds ?? []).map((refund) => ({
    id: refund.id,
    amount: refund.amount,
    reason: refund.reason ?? '',
    createdAt: iso(refund.created_at),
  })),
  receipt: record.receipt ? { number: record.receipt.number, createdAt: iso(record.receipt.created_at) } : undefined,
  dispute: record.dispute ? { id: record.dispute.id, status: record.dispute.status, updatedAt: iso(record.dispute.updated_at) } : undefined,
  paymentMethodId: record.payment_method_id ?? 0,
  userCardId: record.user_card_id ?? 0,
  card: record.card ? { brand: record.card.brand, last4: record.card.last4 } : undefined,
  error: record.error ?? '',
  errorMessage: record.error_message ?? '',
  externalId: record.external_id ?? '',
  memberEmail: record.member_email ?? '',
  createdAt: iso(record.created_at),
  updatedAt: iso(record.updated_at),
});

export const toQuote = (quote: QuoteView): Quote => ({
  totalPrice: quote.total,
  currency: quote.currency,
  purchases: quote.lines.map((line) => ({
    itemType: line.item.itemType,
    itemKey: line.item.itemKey,
    itemId: line.item.itemId,
    title: line.item.title,
    price: line.item.price,
    discount: line.discount,
    amount: line.amount,
    currency: line.item.currency,
    promo: line.promo?.code ?? '',
  })),
});

export const toPromoCode = (promo: PromoCodeRecord, uses: number): PromoCode => ({
  id: promo._id,
  resourceId: promo.resource_id,
  code: promo.code,
  discountType: promo.discount_type,
  discountValue: promo.discount_value,
  currency: promo.currency ?? '',
  maxUses: promo.max_uses,
  uses,
  validFrom: promo.valid_from ? iso(promo.valid_from) : '',
  validUntil: promo.valid_until ? iso(promo.valid_until) : '',
  pricingIds: promo.pricing_ids,
  active: promo.active,
  createdAt: iso(promo.created_at),
});

export const toResourceSummary = (resource: Resource): ResourceSummary => ({
  id: resource.id,
  title: resource.title,
  key: resource.publicKey,
  host: resource.host,
});
