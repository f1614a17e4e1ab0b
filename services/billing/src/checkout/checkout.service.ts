import { createHash } from 'node:crypto';
import { isErrorOf, type ServiceError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import type { ProviderPayment } from '../card-provider/card-provider.js';
import { classifyPaymentFailure, type PaymentRunner } from '../payments/payment.runner.js';
import { promoExhausted } from '../promos/promo.errors.js';
import type { PromoService } from '../promos/promo.service.js';
import type { PromoCodeRecord } from '../promos/promo.schema.js';
import { providerWriteInProgress } from '../provider-writes/provider-write.errors.js';
import type { PurchaseRevocation } from '../refunds/purchase-revocation.js';
import type { RefundService } from '../refunds/refund.service.js';
import type { SourceType } from '../sources/source.repository.js';
import { type ChargeSources, NoChargeSource, type ChargeSource } from '../payments/charge-source.js';
import { publishSettled } from '../transactions/transaction.events.js';
import type { Member } from '../support/member-scope.js';
import { CARDPROVIDER } from '../support/resource-settings.js';
import { BLANK_TRANSACTION, type TransactionRepository } from '../transactions/transaction.repository.js';
import type { PurchaseRecord, TransactionRecord } from '../transactions/transaction.schema.js';
import {
  cardProviderPaymentError,
  idempotencyKeyReused,
  invalidItemResource,
  invalidItemType,
  invalidPaymentSource,
  mixedCurrencies,
  paymentFailed,
  promoRequired,
} from './checkout.errors.js';
import {
  unfulfillable,
  unfulfilledAnswer,
  type Fulfilment,
  type FulfilmentRegistry,
  type ItemRequest,
  type PricedItem,
} from './fulfilment.js';

/** One item of a checkout body: what to buy, with what, and the promo code. */
export interface CheckoutItem extends ItemRequest {
  /** Local IDs of a saved source (document 1: `user_card_id` / `payment_method_id`); 0 when absent. */
  userCardId: number;
  paymentMethodId: number;
}

/** One priced line: the item, its fulfilment, and the promo's discount. */
export interface QuoteLine {
  item: PricedItem;
  fulfilment: Fulfilment;
  promo: PromoCodeRecord | null;
  discount: number;
  amount: number;
}

export interface Quote {
  lines: QuoteLine[];
  total: number;
  currency: string;
}

/** What POST /payment answers: the transaction, and the provider's client secret when it requires action. */
export interface PaymentOutcome {
  transaction: TransactionRecord;
  clientSecret: string | null;
}

interface Deps {
  fulfilments: FulfilmentRegistry;
  promos: PromoService;
  transactions: TransactionRepository;
  chargeSources: ChargeSources;
  payments: PaymentRunner;
  refunds: Pick<RefundService, 'owe' | 'settleOwed'>;
  revocation: Pick<PurchaseRevocation, 'afterGrant'>;
  events: EventPublisher;
  logger: Logger;
  now: () => Date;
}

const fingerprintOf = (items: CheckoutItem[]) =>
  createHash('sha256')
    .update(
      JSON.stringify(
        items.map((item) => [
          item.itemType,
          item.itemKey.trim(),
          item.itemResource,
          item.promo.trim().toUpperCase(),
          item.userCardId,
          item.paymentMethodId,
          // Only when not 1: fingerprints recorded before quantities existed stay valid.
          ...(item.quantity !== 1 ? [item.quantity] : []),
        ]),
      ),
    )
    .digest('hex');

const priced = (purchase: PurchaseRecord): PricedItem => ({
  itemType: purchase.item_type,
  itemKey: purchase.item_key,
  itemId: purchase.item_id,
  title: purchase.title,
  price: purchase.price,
  currency: purchase.currency,
  terms: purchase.terms ?? {},
});

/**
 * Checkout (docs/adr/0142): quotes items through their fulfilments, applies promo codes, and
 * buys them with a saved source, at most one charge per checkout request. A request is one
 * transaction, unique by `<resource>:<user>:<Idempotency-Key>` (or its request ID without a key);
 * every later call with the same key resumes that transaction instead of charging again.
 */
export class CheckoutService {
  constructor(private readonly deps: Deps) {}

  /** POST /payment/calculate-price. */
  async quote(member: Member, items: CheckoutItem[]): Promise<Quote> {
    const lines: QuoteLine[] = [];
    for (const request of items) {
      const fulfilment = this.deps.fulfilments.get(request.itemType);
      if (!fulfilment) throw invalidItemType(this.deps.fulfilments.types);
      if (request.itemResource !== '' && request.itemResource !== member.resourceKey) throw invalidItemResource();
      const item = await fulfilment.price(member, request);
      const code = request.promo.trim();
      // A promo limited to Pricings names Pricing IDs: an item that is no Pricing matches none.
      const applied = code
        ? await this.deps.promos.apply(member.resourceId, code, { ...item, itemId: item.pricingId ?? 0 }, this.deps.now())
        : null;
      const discount = applied?.discount ?? 0;
      lines.push({ item, fulfilment, promo: applied?.promo ?? null, discount, amount: item.price - discount });
    }
    const currency = lines[0]!.item.currency;
    if (lines.some((line) => line.item.currency !== currency)) throw mixedCurrencies();
    return { lines, total: lines.reduce((sum, line) => sum + line.amount, 0), currency };
  }

  /** POST /promo-validation: the quote, provided some item carries a promo (409 invalid_promo otherwise). */
  async validatePromo(member: Member, items: CheckoutItem[]): Promise<Quote> {
    if (!items.some((item) => item.promo.trim() !== '')) throw promoRequired();
    return this.quote(member, items);
  }

  /** POST /payment. */
  async pay(member: Member, items: CheckoutItem[], idempotencyKey: string, requestId: string): Promise<PaymentOutcome> {
    const uniqueKey = `checkout:${member.resourceId}:${member.userId}:${idempotencyKey ? `key:${idempotencyKey}` : `request:${requestId}`}`;
    const fingerprint = fingerprintOf(items);
    const existing = await this.deps.transactions.findByKey(uniqueKey);
    if (existing) return this.resume(existing, fingerprint);

    const quote = await this.quote(member, items);
    const source = quote.total > 0 ? await this.sourceFor(member, items) : null;
    const reserved: Array<QuoteLine & { line: number }> = [];
    const promoCodes = quote.lines.flatMap((line) => (line.promo ? [line.promo] : []));
    try {
      for (const [index, line] of quote.lines.entries()) {
        await line.fulfilment.reserve(member, line.item, uniqueKey, index);
        reserved.push({ ...line, line: index });
      }
      await this.deps.promos.claim(promoCodes, uniqueKey);
    } catch (error) {
      // A concurrent request with the same key may have recorded (and even granted) it meanwhile:
      // then this one is its retry, not a purchase of its own.
      const recorded = await this.deps.transactions.findByKey(uniqueKey);
      if (recorded) return this.resume(recorded, fingerprint);
      await this.releaseLines(member.resourceId, member.userId, uniqueKey, reserved);
      throw error;
    }
    const purchases: PurchaseRecord[] = [];
    for (const line of quote.lines) {
      purchases.push({
        id: await this.deps.transactions.nextPurchaseId(),
        item_type: line.item.itemType,
        item_id: line.item.itemId,
        item_key: line.item.itemKey,
        title: line.item.title,
        price: line.item.price,
        discount: line.discount,
        amount: line.amount,
        currency: line.item.currency,
        promo_code: line.promo?.code ?? null,
        terms: line.item.terms,
        fulfilled_id: null,
      });
    }
    const { record, created } = await this.deps.transactions.insertOnce({
      ...BLANK_TRANSACTION,
      resource_id: member.resourceId,
      user_id: member.userId,
      kind: 'checkout',
      status: 'pending',
      pay_system: CARDPROVIDER,
      mode: member.settings.mode,
      amount: quote.total,
      currency: quote.currency,
      purchases,
      payment_method_id: source?.paymentMethodId ?? null,
      user_card_id: source?.userCardId ?? null,
      card: source?.card ?? null,
      source_ref: source?.sourceRef ?? null,
      customer_id: source?.customerId ?? null,
      unique_key: uniqueKey,
      fingerprint,
      member_email: member.email,
      member_name: member.name,
      resource_title: member.resourceTitle,
    });
    // A concurrent request with the same key recorded it first: continue that one.
    if (!created) return this.resume(record, fingerprint);
    // Recorded: its promo uses are kept for good, unless a use was given back while this checkout
    // was slower than the lease and none is left; then it ends before any charge (docs/adr/0235).
    if (!(await this.deps.promos.keep(promoCodes, uniqueKey))) {
      return this.fail(record, 'invalid_promo', promoExhausted.definition.description, {}, promoExhausted);
    }
    return this.charge(record);
  }

  /**
   * Brings a transaction the payment of which settled on the provider (a webhook, a resumed
   * checkout) to the matching state: succeeded → fulfilled; failed → released. Throws, once that
   * is recorded, 409 payment_failed for a failed payment and the line's answer for a paid line
   * that can never be granted (refunded; `unfulfillable`).
   */
  async applyPayment(transaction: TransactionRecord, payment: ProviderPayment): Promise<PaymentOutcome> {
    const ids = { payment_id: payment.id, charge_id: payment.chargeId };
    switch (payment.status) {
      case 'succeeded':
        return { transaction: await this.complete(transaction, ids), clientSecret: null };
      case 'failed':
      case 'canceled':
        return this.fail(transaction, payment.failureCode ?? payment.status, payment.failureMessage ?? `payment ${payment.status}`, ids);
      case 'requires_action': {
        const updated = (await this.deps.transactions.settle(transaction._id, 'requires_action', ids)) ?? transaction;
        return { transaction: updated, clientSecret: payment.clientSecret };
      }
      case 'processing':
        return { transaction: (await this.deps.transactions.update(transaction._id, ids)) ?? transaction, clientSecret: null };
    }
  }

  /** Continues a recorded checkout where it stands; 409 idempotency_key_reused for other items. */
  private async resume(transaction: TransactionRecord, fingerprint: string): Promise<PaymentOutcome> {
    if (transaction.fingerprint !== fingerprint) throw idempotencyKeyReused();
    switch (transaction.status) {
      case 'succeeded':
      case 'refunded':
        return { transaction: await this.complete(transaction, {}), clientSecret: null };
      case 'failed':
        throw paymentFailed(transaction.error_message ?? transaction.error ?? 'payment failed');
      case 'requires_action':
      case 'pending':
        if (!transaction.payment_id) return this.charge(transaction);
        return this.applyPayment(transaction, await this.refresh(transaction));
    }
  }

  private async refresh(transaction: TransactionRecord): Promise<ProviderPayment> {
    try {
      return await this.deps.payments.refresh(transaction);
    } catch (error) {
      const failure = classifyPaymentFailure(error);
      if (!failure) throw error;
      throw cardProviderPaymentError(failure.code);
    }
  }

  /** The provider payment of a pending transaction, at most once (docs/adr/0121). */
  private async charge(transaction: TransactionRecord): Promise<PaymentOutcome> {
    if (transaction.amount === 0) return { transaction: await this.complete(transaction, {}), clientSecret: null };
    let payment: ProviderPayment;
    try {
      payment = await this.deps.payments.charge(transaction, false);
    } catch (error) {
      if (isErrorOf(error, providerWriteInProgress)) throw error;
      const failure = classifyPaymentFailure(error);
      if (!failure) throw error;
      if (failure.kind === 'uncertain') throw cardProviderPaymentError(failure.code);
      if (failure.kind === 'refused' && failure.code === 'not_configured') {
        await this.fail(transaction, failure.code, failure.message, {}).catch(() => undefined);
        throw cardProviderPaymentError(failure.message);
      }
      return this.fail(transaction, failure.code, failure.message, {});
    }
    return this.applyPayment(transaction, payment);
  }

  /**
   * Marks the transaction succeeded (once) and grants every purchase not granted yet. A paid line
   * that can never be granted is refunded (docs/adr/0201): owed before it is marked, so a crash
   * in between still refunds it, then made; the answer is that line's 409, as it was.
   */
  private async complete(transaction: TransactionRecord, ids: Partial<TransactionRecord>): Promise<TransactionRecord> {
    let current = transaction;
    if (current.status !== 'succeeded' && current.status !== 'refunded') {
      const settled = await this.deps.transactions.settle(current._id, 'succeeded', ids);
      if (settled) await publishSettled(this.deps.events, this.deps.logger, 'transaction_succeeded', settled);
      current = settled ?? (await this.deps.transactions.findById(current._id)) ?? current;
    }
    const target = { resourceId: current.resource_id, userId: current.user_id, transactionId: current._id, claimKey: current.unique_key };
    let unfulfilled: string | null = null;
    for (const [index, purchase] of current.purchases.entries()) {
      // Granted already, or refunded or disputed before it was (docs/adr/0234).
      if (purchase.fulfilled_id !== null || purchase.revoked) continue;
      if (purchase.unfulfilled) {
        unfulfilled ??= purchase.unfulfilled;
        continue;
      }
      const fulfilment = this.deps.fulfilments.get(purchase.item_type);
      if (!fulfilment) continue;
      let granted: number;
      try {
        granted = await fulfilment.fulfil({ ...target, line: index }, priced(purchase));
      } catch (error) {
        const reason = unfulfillable(error);
        if (!reason) throw error;
        await this.deps.refunds.owe(current, index);
        await this.deps.transactions.markUnfulfilled(current._id, index, reason);
        unfulfilled ??= reason;
        continue;
      }
      await this.deps.transactions.markFulfilled(current._id, index, granted);
      await this.deps.revocation.afterGrant(current._id, index);
    }
    if (unfulfilled) {
      await this.deps.refunds.settleOwed(current);
      throw unfulfilledAnswer(unfulfilled);
    }
    return (await this.deps.transactions.findById(current._id)) ?? current;
  }

  /** Marks the transaction failed (once), gives back holds and promo uses, and answers 409 payment_failed (or `refusal`). */
  private async fail(
    transaction: TransactionRecord,
    code: string,
    message: string,
    ids: Partial<TransactionRecord>,
    refusal?: () => ServiceError,
  ): Promise<PaymentOutcome> {
    const settled = await this.deps.transactions.settle(transaction._id, 'failed', { ...ids, error: code, error_message: message });
    if (settled) await publishSettled(this.deps.events, this.deps.logger, 'transaction_failed', settled);
    const current = settled ?? (await this.deps.transactions.findById(transaction._id)) ?? transaction;
    if (current.status === 'failed') {
      const lines = current.purchases.flatMap((purchase, line) => {
        const fulfilment = this.deps.fulfilments.get(purchase.item_type);
        return fulfilment ? [{ item: priced(purchase), fulfilment, line }] : [];
      });
      await this.releaseLines(current.resource_id, current.user_id, current.unique_key, lines);
      throw refusal?.() ?? paymentFailed(current.error_message ?? message);
    }
    // Settled otherwise by a concurrent writer (a webhook): answer what it is now.
    return this.resume(current, current.fingerprint);
  }

  /**
   * The saved source to charge: the one the items name (all the same), else the member's default
   * card-provider source. 409 invalid_payment_source when none fits the resource's mode or its
   * customer is not the member's own (docs/adr/0230).
   */
  private async sourceFor(member: Member, items: CheckoutItem[]): Promise<ChargeSource> {
    const named = new Map(
      items
        .filter((item) => item.paymentMethodId > 0 || item.userCardId > 0)
        .map((item): [string, { type: SourceType; id: number }] =>
          item.paymentMethodId > 0
            ? [`payment-method:${item.paymentMethodId}`, { type: 'payment-method', id: item.paymentMethodId }]
            : [`user-card:${item.userCardId}`, { type: 'user-card', id: item.userCardId }],
        ),
    );
    if (named.size > 1) throw invalidPaymentSource('the items name different payment sources');
    try {
      return await this.deps.chargeSources.resolve(member.resourceId, member, member.settings.mode, [...named.values()][0]);
    } catch (error) {
      if (error instanceof NoChargeSource) throw invalidPaymentSource(error.message);
      // The provider could not say whose customer it is: nothing was reserved or charged.
      const failure = classifyPaymentFailure(error);
      if (failure) throw cardProviderPaymentError(failure.code);
      throw error;
    }
  }

  private async releaseLines(
    resourceId: number,
    userId: number,
    claimKey: string,
    lines: Array<Pick<QuoteLine, 'item' | 'fulfilment'> & { line: number }>,
  ): Promise<void> {
    for (const line of lines) await line.fulfilment.release({ resourceId, userId, claimKey, line: line.line }, line.item);
    await this.deps.promos.release(claimKey);
  }
}
