import { isServiceError } from '@masthead/core/errors';
import type { DomainEvents, EventPublisher } from '@masthead/core/events';
import type { ServiceClient } from '@masthead/core/grpc';
import type { Logger } from '@masthead/core/logging';
import type { Membership } from '@masthead/proto/catalog';
import type { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import type { SponsorshipsServiceService } from '@masthead/proto/community/sponsorships';
import { GIFT_ITEM } from '../checkout/gift.fulfilment.js';
import type { ProviderPayment } from '../card-provider/card-provider.js';
import { pricingTitle, SUBSCRIPTION_ITEM, type SoldMembership } from '../checkout/pricing.fulfilment.js';
import { NoChargeSource, type ChargeSource, type ChargeSources } from '../payments/charge-source.js';
import { classifyPaymentFailure, type PaymentRunner } from '../payments/payment.runner.js';
import { CARDPROVIDER } from '../support/resource-settings.js';
import { publishSettled } from '../transactions/transaction.events.js';
import { BLANK_TRANSACTION, type TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionRecord } from '../transactions/transaction.schema.js';
import type { RenewalRepository } from './renewal.repository.js';
import type { RenewalRecord } from './renewal.schema.js';

/** What one pass did, per outcome. */
export interface RenewalPass {
  processed: number;
  renewed: number;
  failed: number;
  lapsed: number;
  stopped: number;
}

type Outcome = 'renewed' | 'failed' | 'lapsed' | 'stopped' | 'pending';

interface Deps {
  renewals: RenewalRepository;
  transactions: TransactionRepository;
  chargeSources: ChargeSources;
  payments: PaymentRunner;
  memberships: ServiceClient<typeof MembershipsServiceService>;
  /** Who pays for a gift's membership (docs/adr/0158). */
  sponsorships: ServiceClient<typeof SponsorshipsServiceService>;
  events: EventPublisher;
  logger: Logger;
  now: () => Date;
  /** Hours to wait after each failed attempt; one more failure than entries lapses the membership. */
  retryHours: number[];
  batch: number;
}

const HOUR_MS = 3_600_000;

/** The member charged for a renewal: the gift's sponsor, else the holder. */
const payerOf = (record: RenewalRecord): number => record.payer_id ?? record.user_id;
/** Records tracked before gifts renewed have no `payer_id` at all. */
const sponsored = (record: RenewalRecord): boolean => typeof record.payer_id === 'number';

/** Renewals of the paid memberships billing sold (see CONTEXT.md; docs/adr/0145). */
export class RenewalService {
  private running: Promise<RenewalPass> | null = null;

  constructor(private readonly deps: Deps) {}

  /** Starts renewing a membership checkout sold, if it is paid and autorenews (PricingFulfilment's hook). */
  async trackSale(sold: SoldMembership): Promise<void> {
    if (!sold.autorenew || !sold.endDate) return;
    const transaction = await this.deps.transactions.findById(sold.transactionId);
    const purchase = transaction?.purchases.find((row) => row.item_type === SUBSCRIPTION_ITEM && row.item_id === sold.pricingId);
    if (!transaction || !purchase || purchase.price <= 0) return;
    const end = new Date(sold.endDate);
    await this.deps.renewals.track({
      _id: sold.membershipId,
      resource_id: sold.resourceId,
      user_id: sold.userId,
      payer_id: null,
      pricing_id: sold.pricingId,
      mode: transaction.mode,
      member_email: transaction.member_email,
      member_name: transaction.member_name,
      resource_title: transaction.resource_title,
      status: 'active',
      period_end: end,
      attempt: 0,
      next_attempt_at: end,
    });
  }

  /**
   * A recipient activated a gift slot (`sponsor_slot_activated`): when billing sold that gift
   * and the membership autorenews with an end, its renewals are charged to the sponsor while the
   * sponsorship says the sponsor pays (docs/adr/0158). Repeatable: a record is tracked once.
   */
  async trackSponsored(resourceId: number, membershipId: number): Promise<boolean> {
    const sponsorship = await this.deps.sponsorships.getMembershipSponsorship({ resourceId, membershipId }, { idempotent: true });
    if (!sponsorship.sponsored) return false;
    const sale = await this.deps.transactions.findByGrant(resourceId, sponsorship.sponsorId, GIFT_ITEM, sponsorship.sponsorshipId);
    if (!sale || sale.purchase.price <= 0) return false;
    const membership = await this.membership({ _id: membershipId, resource_id: resourceId, user_id: sponsorship.recipientId });
    if (!membership?.active || !membership.autorenew || !membership.subscriptionEndDate) return false;
    const end = new Date(membership.subscriptionEndDate);
    return this.deps.renewals.track({
      _id: membershipId,
      resource_id: resourceId,
      user_id: sponsorship.recipientId,
      payer_id: sponsorship.sponsorId,
      pricing_id: membership.pricing?.id ?? sale.purchase.item_id,
      mode: sale.transaction.mode,
      member_email: sale.transaction.member_email,
      member_name: sale.transaction.member_name,
      resource_title: sale.transaction.resource_title,
      status: 'active',
      period_end: end,
      attempt: 0,
      next_attempt_at: end,
    });
  }

  /** One pass over what is due at the clock's now; a pass already running in this process is joined. */
  runDue(): Promise<RenewalPass> {
    this.running ??= this.pass().finally(() => (this.running = null));
    return this.running;
  }

  private async pass(): Promise<RenewalPass> {
    const now = this.deps.now();
    const pass: RenewalPass = { processed: 0, renewed: 0, failed: 0, lapsed: 0, stopped: 0 };
    for (const record of await this.deps.renewals.due(now, this.deps.batch)) {
      try {
        const outcome = await this.renew(record, now);
        pass.processed++;
        if (outcome !== 'pending') pass[outcome]++;
      } catch (error) {
        // Uncertain (the provider did not answer, another replica holds the write): next pass.
        this.deps.logger.warn({ err: error, membership: record._id }, 'renewal attempt left for the next pass');
      }
    }
    return pass;
  }

  private async renew(record: RenewalRecord, now: Date): Promise<Outcome> {
    const membership = await this.membership(record);
    const end = membership?.subscriptionEndDate ? new Date(membership.subscriptionEndDate) : null;
    if (!membership?.active || !end) {
      await this.deps.renewals.advance(record, { status: 'stopped' });
      return 'stopped';
    }
    if (end.getTime() > record.period_end.getTime()) {
      // Renewed or changed elsewhere (another replica's pass, an operator): follow, charge nothing.
      await this.deps.renewals.advance(record, { period_end: end, attempt: 0, status: 'active', next_attempt_at: end });
      return 'stopped';
    }
    if (!membership.autorenew) return this.lapse(record, membership, 'autorenew_off');
    // A gift renews on the sponsor's card only: not once the sponsor or the recipient stopped that.
    if (sponsored(record) && !(await this.sponsorPays(record))) return this.lapse(record, membership, 'sponsor_payment_off');
    let transaction = await this.attempt(record, membership);
    if (transaction.status === 'pending' || transaction.status === 'requires_action') {
      const settled = await this.charge(transaction);
      if (!settled) return 'pending';
      transaction = settled;
    }
    return transaction.status === 'succeeded' ? this.succeeded(record, transaction) : this.failed(record, membership, transaction, now);
  }

  /** The attempt's transaction: recorded once per (membership, period, attempt) by any replica. */
  private async attempt(record: RenewalRecord, membership: Membership): Promise<TransactionRecord> {
    const uniqueKey = `renewal:${record._id}:${record.period_end.toISOString()}:${record.attempt}`;
    const existing = await this.deps.transactions.findByKey(uniqueKey);
    if (existing) return existing;
    let source: ChargeSource | null = null;
    let missing: string | null = null;
    try {
      // The payer's email as the sale recorded it: the sponsor's for a gift, else the holder's.
      source = await this.deps.chargeSources.resolve(
        record.resource_id,
        { userId: payerOf(record), email: record.member_email },
        record.mode,
      );
    } catch (error) {
      if (!(error instanceof NoChargeSource)) throw error;
      missing = error.message;
    }
    const pricing = membership.pricing;
    const price = pricing?.price ?? 0;
    const currency = pricing?.currency ?? 'USD';
    const { record: transaction } = await this.deps.transactions.insertOnce({
      ...BLANK_TRANSACTION,
      resource_id: record.resource_id,
      user_id: payerOf(record),
      kind: 'renewal',
      status: missing ? 'failed' : 'pending',
      pay_system: CARDPROVIDER,
      mode: record.mode,
      amount: price,
      currency,
      purchases: [
        {
          id: await this.deps.transactions.nextPurchaseId(),
          item_type: SUBSCRIPTION_ITEM,
          item_id: record.pricing_id,
          item_key: String(record.pricing_id),
          title: pricing ? pricingTitle(pricing) : '',
          price,
          discount: 0,
          amount: price,
          currency,
          promo_code: null,
          terms: { renewal_of: record.period_end.toISOString(), ...(sponsored(record) ? { recipient_id: record.user_id } : {}) },
          fulfilled_id: null,
        },
      ],
      payment_method_id: source?.paymentMethodId ?? null,
      user_card_id: source?.userCardId ?? null,
      card: source?.card ?? null,
      source_ref: source?.sourceRef ?? null,
      customer_id: source?.customerId ?? null,
      error: missing ? 'no_payment_source' : null,
      error_message: missing,
      unique_key: uniqueKey,
      member_email: record.member_email,
      member_name: record.member_name,
      resource_title: record.resource_title,
    });
    return transaction;
  }

  /**
   * Charges the attempt off-session at most once (the ledger, docs/adr/0121), or reads the
   * payment's state when it has one. Null while it is undecided; a timeout throws (next pass).
   */
  private async charge(transaction: TransactionRecord): Promise<TransactionRecord | null> {
    let payment: ProviderPayment;
    try {
      payment = transaction.payment_id ? await this.deps.payments.refresh(transaction) : await this.deps.payments.charge(transaction, true);
    } catch (error) {
      const failure = classifyPaymentFailure(error);
      if (!failure || failure.kind === 'uncertain') throw error;
      return this.settle(transaction, 'failed', { error: failure.code, error_message: failure.message });
    }
    const ids = { payment_id: payment.id, charge_id: payment.chargeId };
    switch (payment.status) {
      case 'succeeded':
        return this.settle(transaction, 'succeeded', ids);
      case 'processing':
        await this.deps.transactions.update(transaction._id, ids);
        return null;
      default:
        // Off-session, nobody can finish 3-D Secure: the attempt failed.
        return this.settle(transaction, 'failed', {
          ...ids,
          error: payment.status === 'requires_action' ? 'authentication_required' : (payment.failureCode ?? payment.status),
          error_message: payment.failureMessage ?? `payment ${payment.status}`,
        });
    }
  }

  private async settle(
    transaction: TransactionRecord,
    to: 'succeeded' | 'failed',
    fields: Partial<TransactionRecord>,
  ): Promise<TransactionRecord> {
    const settled = await this.deps.transactions.settle(transaction._id, to, fields);
    if (settled)
      await publishSettled(
        this.deps.events,
        this.deps.logger,
        to === 'succeeded' ? 'transaction_succeeded' : 'transaction_failed',
        settled,
      );
    return settled ?? (await this.deps.transactions.findById(transaction._id)) ?? transaction;
  }

  /** Catalog moves the membership one period on; the record follows to the new period end. */
  private async succeeded(record: RenewalRecord, transaction: TransactionRecord): Promise<Outcome> {
    const renewed = await this.deps.memberships.renewMembership({
      resourceId: record.resource_id,
      userId: record.user_id,
      membershipId: record._id,
      fromEndDate: record.period_end.toISOString(),
    });
    await this.deps.transactions.markFulfilled(transaction._id, 0, renewed.id);
    const end = renewed.subscriptionEndDate ? new Date(renewed.subscriptionEndDate) : null;
    const moved = end
      ? await this.deps.renewals.advance(record, { period_end: end, attempt: 0, status: 'active', next_attempt_at: end })
      : await this.deps.renewals.advance(record, { status: 'stopped' });
    if (moved)
      await this.publish('renewal_succeeded', record, {
        membership_id: record._id,
        user_id: record.user_id,
        transaction_id: transaction._id,
        period_end: end?.toISOString() ?? null,
      });
    return 'renewed';
  }

  /** One more failed attempt: the next after the schedule's wait, or the membership lapses. */
  private async failed(record: RenewalRecord, membership: Membership, transaction: TransactionRecord, now: Date): Promise<Outcome> {
    const attempt = record.attempt + 1;
    const wait = this.deps.retryHours[attempt - 1];
    const next = wait === undefined ? null : new Date(now.getTime() + wait * HOUR_MS);
    const failure = {
      membership_id: record._id,
      user_id: record.user_id,
      transaction_id: transaction._id,
      attempt,
      next_attempt_at: next?.toISOString() ?? null,
      error: transaction.error,
    };
    if (!next) return this.lapse(record, membership, 'payment_failed', { attempt }, failure);
    if (await this.deps.renewals.advance(record, { attempt, status: 'retrying', next_attempt_at: next })) {
      await this.publish('renewal_failed', record, failure);
    }
    return 'failed';
  }

  /**
   * The membership ends (`lapsed`) and the record with it; `failure`, the last failed attempt,
   * is published first when there was one.
   */
  private async lapse(
    record: RenewalRecord,
    membership: Membership,
    reason: string,
    fields: Partial<RenewalRecord> = {},
    failure?: DomainEvents['renewal_failed'],
  ): Promise<Outcome> {
    await this.deps.memberships.endMembership({
      resourceId: record.resource_id,
      userId: record.user_id,
      membershipId: membership.id,
      reason: 'lapsed',
    });
    if (await this.deps.renewals.advance(record, { ...fields, status: 'lapsed' })) {
      if (failure) await this.publish('renewal_failed', record, failure);
      await this.publish('membership_lapsed', record, { membership_id: record._id, user_id: record.user_id, reason });
    }
    return 'lapsed';
  }

  /** Whether the sponsor still pays: the sponsorship's flag and the recipient's own, and its autorenew. */
  private async sponsorPays(record: RenewalRecord): Promise<boolean> {
    const sponsorship = await this.deps.sponsorships.getMembershipSponsorship(
      { resourceId: record.resource_id, membershipId: record._id },
      { idempotent: true },
    );
    return sponsorship.sponsored && sponsorship.isPayingBySponsor && sponsorship.autorenew;
  }

  private async membership(record: Pick<RenewalRecord, '_id' | 'resource_id' | 'user_id'>): Promise<Membership | null> {
    try {
      return await this.deps.memberships.getMembership(
        { resourceId: record.resource_id, userId: record.user_id, membershipId: record._id },
        { idempotent: true },
      );
    } catch (error) {
      if (isServiceError(error) && error.status === 404) return null;
      throw error;
    }
  }

  private async publish<N extends 'renewal_succeeded' | 'renewal_failed' | 'membership_lapsed'>(
    name: N,
    record: RenewalRecord,
    payload: DomainEvents[N],
  ): Promise<void> {
    try {
      await this.deps.events.publish({ name, resourceId: record.resource_id, payload });
    } catch (error) {
      this.deps.logger.warn({ err: error, membership: record._id }, `${name} not published`);
    }
  }
}
