import { isServiceError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import Stripe from 'stripe';
import type { ProviderPayment } from '../card-provider/card-provider.js';
import type { CheckoutService } from '../checkout/checkout.service.js';
import { unfulfillable } from '../checkout/fulfilment.js';
import { classifyPaymentFailure, type PaymentRunner } from '../payments/payment.runner.js';
import type { PurchaseRevocation } from '../refunds/purchase-revocation.js';
import type { RefundService } from '../refunds/refund.service.js';
import { publishChanged, publishSettled } from '../transactions/transaction.events.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';
import type { WebhookEventRepository } from './webhook-event.repository.js';
import { invalidWebhookSignature, webhookInProgress, webhookNotConfigured, webhookProviderUnavailable } from './webhook.errors.js';

export interface WebhookOutcome {
  duplicate: boolean;
  /** The event names nothing billing made (another integration's object, a type it does not follow). */
  ignored: boolean;
}

interface Deps {
  /** Endpoint secrets (`whsec_…`); an event verifies with any (rotation, several provider accounts). */
  secrets: string[];
  events: WebhookEventRepository;
  transactions: TransactionRepository;
  checkout: CheckoutService;
  payments: PaymentRunner;
  refunds: Pick<RefundService, 'mirror'>;
  revocation: Pick<PurchaseRevocation, 'disputeLost'>;
  publisher: EventPublisher;
  logger: Logger;
}

/** Disputes in the order they can only move forward: a closed one never reopens (the fake has no dispute API to refetch). */
const CLOSED_DISPUTES = new Set(['won', 'lost', 'warning_closed', 'charge_refunded']);

const idOf = (value: unknown): string | null =>
  typeof value === 'string'
    ? value
    : value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string'
      ? (value as { id: string }).id
      : null;

/** `masthead:<resource>:<user>:payment:<transaction>:v1` → the transaction ID (payment.runner.ts's key). */
const transactionOfKey = (key: unknown): number | null => {
  const match = typeof key === 'string' ? /^masthead:\d+:\d+:payment:(\d+):v1$/.exec(key) : null;
  return match ? Number(match[1]) : null;
};

/** POST /webhooks/cardprovider (see CONTEXT.md; docs/adr/0147). */
export class WebhookService {
  constructor(private readonly deps: Deps) {}

  async handle(payload: string, signature: string): Promise<WebhookOutcome> {
    const event = this.verify(payload, signature);
    const claim = await this.deps.events.claim(event.id, event.type);
    if (claim === 'done') return { duplicate: true, ignored: false };
    if (claim === 'busy') throw webhookInProgress();
    try {
      const ignored = !(await this.apply(event));
      await this.deps.events.done(event.id);
      return { duplicate: false, ignored };
    } catch (error) {
      await this.deps.events.release(event.id);
      if (isServiceError(error)) throw error;
      if (classifyPaymentFailure(error)) {
        this.deps.logger.warn({ err: error, event: event.id }, 'webhook not applied: provider unavailable');
        throw webhookProviderUnavailable();
      }
      throw error;
    }
  }

  private verify(payload: string, signature: string): Stripe.Event {
    if (this.deps.secrets.length === 0) throw webhookNotConfigured();
    if (!signature) throw invalidWebhookSignature();
    for (const secret of this.deps.secrets) {
      try {
        return Stripe.webhooks.constructEvent(payload, signature, secret);
      } catch {
        // Another secret may verify it.
      }
    }
    throw invalidWebhookSignature();
  }

  /** Applies the event's object as the provider holds it now; false when it is not billing's. */
  private async apply(event: Stripe.Event): Promise<boolean> {
    const object = event.data.object as unknown as Record<string, unknown>;
    if (event.type.startsWith('payment_intent.')) return this.payment(String(object['id']), object['metadata']);
    if (event.type === 'charge.succeeded' || event.type === 'charge.failed') {
      const intent = idOf(object['payment_intent']);
      return intent ? this.payment(intent, undefined) : this.payment(String(object['id']), object['metadata']);
    }
    if (event.type === 'charge.refunded' || event.type.startsWith('charge.refund.') || event.type.startsWith('refund.')) {
      const charge = event.type === 'charge.refunded' ? String(object['id']) : idOf(object['charge']);
      return charge ? this.refunds(charge, idOf(object['payment_intent'])) : false;
    }
    if (event.type.startsWith('charge.dispute.')) return this.dispute(object);
    return false;
  }

  /** A payment (intent or legacy charge): its transaction follows the provider's current state. */
  private async payment(paymentId: string, metadata: unknown): Promise<boolean> {
    const key = (metadata as Record<string, unknown> | undefined)?.['masthead_key'];
    const byKey = transactionOfKey(key);
    // By our own key first: it names the transaction even when a crash kept its payment ID unrecorded.
    const transaction =
      (byKey ? await this.deps.transactions.findById(byKey) : null) ?? (await this.deps.transactions.findByPayment(paymentId));
    if (!transaction || transaction.kind === 'external') return false;
    const payment = await this.deps.payments.refresh({ ...transaction, payment_id: paymentId });
    if (transaction.kind === 'checkout') {
      try {
        await this.deps.checkout.applyPayment(transaction, payment);
      } catch (error) {
        // A failed payment answers the member 409 payment_failed, a paid line that can never be
        // granted its 409 (refunded, docs/adr/0201); here they are only recorded.
        if (!isServiceError(error) || (error.code !== 'payment_failed' && !unfulfillable(error))) throw error;
      }
      return true;
    }
    // A renewal attempt: recorded here; the next renewal pass renews or counts the failure.
    await this.settleRenewal(transaction, payment);
    return true;
  }

  private async settleRenewal(transaction: TransactionRecord, payment: ProviderPayment): Promise<void> {
    const ids = { payment_id: payment.id, charge_id: payment.chargeId };
    if (payment.status === 'processing' || payment.status === 'requires_action') {
      await this.deps.transactions.update(transaction._id, ids);
      return;
    }
    const to = payment.status === 'succeeded' ? 'succeeded' : 'failed';
    const fields = to === 'failed' ? { ...ids, error: payment.failureCode ?? payment.status, error_message: payment.failureMessage } : ids;
    const settled = await this.deps.transactions.settle(transaction._id, to, fields);
    if (settled)
      await publishSettled(
        this.deps.publisher,
        this.deps.logger,
        to === 'succeeded' ? 'transaction_succeeded' : 'transaction_failed',
        settled,
      );
  }

  /** Refunds, mirrored from the charge as the provider lists them now (refund.service.ts). */
  private async refunds(chargeId: string, intentId: string | null): Promise<boolean> {
    const transaction = await this.transactionOfCharge(chargeId, intentId);
    if (!transaction) return false;
    await this.deps.refunds.mirror(transaction, chargeId);
    return true;
  }

  /**
   * A dispute's status on its transaction; a closed dispute is never moved back by an older
   * event. A lost dispute ends what the transaction bought (`disputed`).
   */
  private async dispute(object: Record<string, unknown>): Promise<boolean> {
    const chargeId = idOf(object['charge']);
    const transaction = chargeId ? await this.transactionOfCharge(chargeId, idOf(object['payment_intent'])) : null;
    if (!transaction) return false;
    const status = String(object['status'] ?? 'needs_response');
    const current = transaction.dispute;
    if (current && CLOSED_DISPUTES.has(current.status) && !CLOSED_DISPUTES.has(status)) return true;
    const dispute = { id: String(object['id']), status, updated_at: new Date() };
    const updated = await this.deps.transactions.update(transaction._id, { dispute });
    if (updated) await publishChanged(this.deps.publisher, this.deps.logger, 'transaction_disputed', updated);
    // Also on a repeat: the revocation takes nothing back twice and finishes one that failed (docs/adr/0234).
    if (status === 'lost' && updated) await this.deps.revocation.disputeLost(updated);
    return true;
  }

  /** The transaction of a charge: by the charge, else by its intent (recorded before its charge was). */
  private async transactionOfCharge(chargeId: string, intentId: string | null): Promise<TransactionRecord | null> {
    const transaction =
      (await this.deps.transactions.findByCharge(chargeId)) ?? (intentId ? await this.deps.transactions.findByPayment(intentId) : null);
    return transaction && transaction.kind !== 'external' ? transaction : null;
  }
}
