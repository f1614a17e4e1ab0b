import { isServiceError } from '@masthead/core/errors';
import type { EventPublisher } from '@masthead/core/events';
import type { Logger } from '@masthead/core/logging';
import Stripe from 'stripe';
import { z } from 'zod';
import { isCardProviderFailure, type ProviderPayment } from '../card-provider/card-provider.js';
import type { ProviderAccess } from '../card-provider/provider-access.js';
import type { CheckoutService } from '../checkout/checkout.service.js';
import { unfulfillable } from '../checkout/fulfilment.js';
import { classifyPaymentFailure, paymentKey, type PaymentRunner } from '../payments/payment.runner.js';
import type { PurchaseRevocation } from '../refunds/purchase-revocation.js';
import type { RefundService } from '../refunds/refund.service.js';
import { publishChanged, publishSettled } from '../transactions/transaction.events.js';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';
import type { WebhookEventRepository } from './webhook-event.repository.js';
import {
  invalidWebhookPayload,
  invalidWebhookSignature,
  webhookInProgress,
  webhookNotConfigured,
  webhookProviderUnavailable,
} from './webhook.errors.js';

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
  /** The provider with each transaction's resource connection: events are acted on as it answers. */
  providers: ProviderAccess;
  checkout: CheckoutService;
  payments: PaymentRunner;
  refunds: Pick<RefundService, 'mirror'>;
  revocation: Pick<PurchaseRevocation, 'disputeLost'>;
  publisher: EventPublisher;
  logger: Logger;
}

/** Disputes in the order they can only move forward: a closed one never reopens (two deliveries read at different times). */
const CLOSED_DISPUTES = new Set(['won', 'lost', 'warning_closed', 'charge_refunded']);

/**
 * How far a signature's timestamp may be from now, either way: the provider's tolerance of 300 s
 * (its SDK's default). The SDK checks only the past; a timestamp in the future is refused here.
 */
const TOLERANCE_SECONDS = 300;

/** What billing reads of a verified body; anything else signed is 400 invalid_webhook_payload. Unknown keys are ignored. */
const providerEvent = z.object({
  id: z.string().min(1).max(255),
  type: z.string().min(1).max(255),
  data: z.object({ object: z.record(z.unknown()) }),
});
type ProviderEvent = z.infer<typeof providerEvent>;

/** The `t=` of a signature header, when it has exactly one. */
function timestampOf(signature: string): number | null {
  const stamps = signature.split(',').filter((item) => item.startsWith('t='));
  return stamps.length === 1 && /^t=\d{1,12}$/.test(stamps[0]!) ? Number(stamps[0]!.slice(2)) : null;
}

/** Whether the body is signed with `secret` (the SDK's HMAC check and its past tolerance). */
function signedWith(payload: string, signature: string, secret: string): boolean {
  try {
    return Stripe.webhooks.signature?.verifyHeader(payload, signature, secret, TOLERANCE_SECONDS) === true;
  } catch {
    return false;
  }
}

/** The parsed event, or 400 invalid_webhook_payload for a signed body that is no provider event. */
function eventOf(payload: string): ProviderEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(payload);
  } catch {
    throw invalidWebhookPayload();
  }
  const event = providerEvent.safeParse(parsed);
  if (!event.success) throw invalidWebhookPayload();
  return event.data;
}

const idOf = (value: unknown): string | null =>
  typeof value === 'string'
    ? value
    : value && typeof value === 'object' && typeof (value as { id?: unknown }).id === 'string'
      ? (value as { id: string }).id
      : null;

/** The provider's answer, or null when it has no such object (404): an event about it changes nothing. */
async function unlessUnknown<T>(read: () => Promise<T>): Promise<T | null> {
  try {
    return await read();
  } catch (error) {
    if (isCardProviderFailure(error) && error.httpStatus === 404) return null;
    throw error;
  }
}

/** Whether a charge (or what names one: a dispute) is the transaction's: its recorded charge, or a charge of its payment. */
const paysFor = (transaction: TransactionRecord, charge: { id: string | null; paymentIntent: string | null }): boolean =>
  (charge.id !== null && charge.id === transaction.charge_id) ||
  (charge.paymentIntent !== null && charge.paymentIntent === transaction.payment_id);

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

  /** The event, once signed with an endpoint secret within ±TOLERANCE_SECONDS (any secret: rotation, several accounts). */
  private verify(payload: string, signature: string): ProviderEvent {
    if (this.deps.secrets.length === 0) throw webhookNotConfigured();
    const timestamp = timestampOf(signature);
    if (timestamp === null || Math.abs(Date.now() / 1000 - timestamp) > TOLERANCE_SECONDS) throw invalidWebhookSignature();
    if (!this.deps.secrets.some((secret) => signedWith(payload, signature, secret))) throw invalidWebhookSignature();
    return eventOf(payload);
  }

  /**
   * Applies the event's object as the provider holds it now; false when it is not billing's. The
   * body only points at objects: each is refetched with its transaction's resource connection and
   * acted on only when the provider's object is that transaction's (docs/adr/0231).
   */
  private async apply(event: ProviderEvent): Promise<boolean> {
    const object = event.data.object;
    const id = idOf(object);
    if (event.type.startsWith('payment_intent.')) return id ? this.payment(id, object['metadata']) : false;
    if (event.type === 'charge.succeeded' || event.type === 'charge.failed') {
      const intent = idOf(object['payment_intent']);
      if (intent) return this.payment(intent, undefined);
      return id ? this.payment(id, object['metadata']) : false;
    }
    if (event.type === 'charge.refunded' || event.type.startsWith('charge.refund.') || event.type.startsWith('refund.')) {
      const charge = event.type === 'charge.refunded' ? id : idOf(object['charge']);
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
    const payment = await unlessUnknown(() => this.deps.payments.refresh({ ...transaction, payment_id: paymentId }));
    // The provider's payment must be the transaction's: tagged with its key, or the one recorded for it.
    if (!payment || (payment.key !== paymentKey(transaction) && payment.id !== transaction.payment_id)) return false;
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

  /** Refunds, mirrored from the charge as the provider lists them now (refund.service.ts), when it is the transaction's. */
  private async refunds(chargeId: string, intentId: string | null): Promise<boolean> {
    const transaction = await this.transactionOfCharge(chargeId, intentId);
    if (!transaction) return false;
    if (transaction.charge_id !== chargeId) {
      // Found by the event's intent: only a charge the provider says pays that intent is mirrored.
      const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
      const charge = await unlessUnknown(() => provider.retrieveCharge(chargeId));
      if (!charge || !paysFor(transaction, charge)) return false;
    }
    await this.deps.refunds.mirror(transaction, chargeId);
    return true;
  }

  /**
   * A dispute's status on its transaction, as the provider holds the dispute now: one the provider
   * does not have, or that is not on the transaction's charge, changes nothing. A closed dispute
   * is never moved back by an older read. A lost dispute ends what the transaction bought (`disputed`).
   */
  private async dispute(object: Record<string, unknown>): Promise<boolean> {
    const chargeId = idOf(object['charge']);
    const transaction = chargeId ? await this.transactionOfCharge(chargeId, idOf(object['payment_intent'])) : null;
    const disputeId = idOf(object);
    if (!transaction || !disputeId) return false;
    const provider = await this.deps.providers.for(transaction.resource_id, transaction.mode);
    const found = await provider.retrieveDispute(disputeId);
    if (!found || !paysFor(transaction, { id: found.chargeId, paymentIntent: found.paymentIntent })) return false;
    const { status } = found;
    const current = transaction.dispute;
    if (current && CLOSED_DISPUTES.has(current.status) && !CLOSED_DISPUTES.has(status)) return true;
    const dispute = { id: found.id, status, updated_at: new Date() };
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
