import { fieldError, isServiceError } from '@masthead/core/errors';
import type { ServiceClient } from '@masthead/core/grpc';
import { isStorableText, unstorableText } from '@masthead/core/mongo';
import type { Membership, Pricing } from '@masthead/proto/catalog';
import type { MembershipsServiceService } from '@masthead/proto/catalog/memberships';
import type { PricingsServiceService } from '@masthead/proto/catalog/pricings';
import type { IdentityServiceService } from '@masthead/proto/identity';
import { pricingTitle, SUBSCRIPTION_ITEM } from '../checkout/pricing.fulfilment.js';
import type { BillingSettings } from '../support/resource-settings.js';
import { BLANK_TRANSACTION, type TransactionRepository } from '../transactions/transaction.repository.js';
import type { RefundRecord, TransactionRecord } from '../transactions/transaction.schema.js';
import { externalTransactionExists, externalUserNotFound, getTransactionError, invalidRefundAmount } from './external.errors.js';

/** The resource a service account acts in, as the gateway resolved it. */
export interface ExternalScope {
  resourceId: number;
  resourceTitle: string;
  settings: BillingSettings;
}

/** The Pricing: by ID, or by a product ID mapped in its external_source_ids. */
export interface PricingChoice {
  pricingId: number;
  productId: string;
}

export interface ExternalOutcome {
  transaction: TransactionRecord;
  membership: Membership | null;
  fallback: Membership | null;
  created: boolean;
}

interface Deps {
  transactions: TransactionRepository;
  pricings: ServiceClient<typeof PricingsServiceService>;
  memberships: ServiceClient<typeof MembershipsServiceService>;
  identity: ServiceClient<typeof IdentityServiceService>;
}

const keyOf = (resourceId: number, externalId: string) => `external:${resourceId}:${externalId}`;
const READ = { idempotent: true };

/** Texts to be stored: one with a NUL, which the database cannot hold, answers 409 with its field. */
function assertStorable(fields: Record<string, string>): void {
  const refused = Object.entries(fields).filter(([, text]) => !isStorableText(text));
  if (refused.length > 0) throw fieldError(Object.fromEntries(refused.map(([name]) => [name, unstorableText(name)])));
}

/** Document 2 I's external purchase records (see CONTEXT.md; docs/adr/0146). */
export class ExternalPurchaseService {
  constructor(private readonly deps: Deps) {}

  /** GET /integrations/external/transaction: the exact store transaction ID in the resource. */
  async find(resourceId: number, externalId: string): Promise<TransactionRecord> {
    const transaction = externalId ? await this.deps.transactions.findExternal(resourceId, externalId) : null;
    if (!transaction || transaction.kind !== 'external') throw getTransactionError();
    return transaction;
  }

  /** POST: records the purchase and grants the membership, once per store transaction. */
  async record(
    scope: ExternalScope,
    userId: number,
    externalId: string,
    choice: PricingChoice,
    terms: { amount?: number; currency?: string; endDate?: string; autorenew?: boolean },
  ): Promise<ExternalOutcome> {
    assertStorable({ transaction_id: externalId });
    const member = await this.member(scope.resourceId, userId);
    const pricing = await this.pricing(scope.resourceId, choice);
    const existing = await this.deps.transactions.findByKey(keyOf(scope.resourceId, externalId));
    if (existing) {
      if (existing.user_id !== userId || existing.purchases[0]?.item_id !== pricing.id) throw externalTransactionExists();
      return { transaction: existing, membership: await this.membershipOf(existing), fallback: null, created: false };
    }
    const amount = terms.amount ?? pricing.price;
    const currency = terms.currency ?? pricing.currency;
    const { record, created } = await this.deps.transactions.insertOnce({
      ...BLANK_TRANSACTION,
      resource_id: scope.resourceId,
      user_id: userId,
      kind: 'external',
      status: 'succeeded',
      pay_system: 'in-app',
      mode: scope.settings.mode,
      amount,
      currency,
      purchases: [
        {
          id: await this.deps.transactions.nextPurchaseId(),
          item_type: SUBSCRIPTION_ITEM,
          item_id: pricing.id,
          item_key: String(pricing.id),
          title: pricingTitle(pricing),
          price: amount,
          discount: 0,
          amount,
          currency,
          promo_code: null,
          terms: {},
          fulfilled_id: null,
        },
      ],
      unique_key: keyOf(scope.resourceId, externalId),
      external_id: externalId,
      member_email: member.email,
      member_name: member.name,
      resource_title: scope.resourceTitle,
    });
    if (!created && (record.user_id !== userId || record.purchases[0]?.item_id !== pricing.id)) throw externalTransactionExists();
    const membership = await this.grant(record, pricing.id, terms);
    return { transaction: (await this.deps.transactions.findById(record._id)) ?? record, membership, fallback: null, created };
  }

  /** PUT: another Pricing (the old membership ends, `changed`), or new end date / autorenew. */
  async change(
    scope: ExternalScope,
    userId: number,
    externalId: string,
    choice: PricingChoice,
    terms: { endDate?: string; autorenew?: boolean },
  ): Promise<ExternalOutcome> {
    const transaction = await this.owned(scope.resourceId, userId, externalId);
    const current = await this.membershipOf(transaction);
    const wanted = choice.pricingId > 0 || choice.productId ? await this.pricing(scope.resourceId, choice) : null;
    if (wanted && wanted.id !== transaction.purchases[0]?.item_id) {
      if (current?.active) await this.end(transaction, current, 'changed');
      await this.deps.transactions.update(transaction._id, {
        'purchases.0.item_id': wanted.id,
        'purchases.0.item_key': String(wanted.id),
        'purchases.0.title': pricingTitle(wanted),
        'purchases.0.fulfilled_id': null,
      });
      const moved = (await this.deps.transactions.findById(transaction._id)) ?? transaction;
      const membership = await this.grant(moved, wanted.id, terms);
      return { transaction: (await this.deps.transactions.findById(transaction._id)) ?? moved, membership, fallback: null, created: false };
    }
    if (!current?.active) throw getTransactionError();
    const membership = await this.deps.memberships.changeMembershipTerms({
      resourceId: transaction.resource_id,
      userId,
      membershipId: current.id,
      endDate: terms.endDate,
      autorenew: terms.autorenew,
    });
    return { transaction, membership, fallback: null, created: false };
  }

  /** DELETE: the resource's configured downgrade. */
  async downgrade(scope: ExternalScope, userId: number, externalId: string): Promise<ExternalOutcome> {
    const transaction = await this.owned(scope.resourceId, userId, externalId);
    return { transaction, ...(await this.applyDowngrade(scope, transaction, 'downgraded')), created: false };
  }

  /**
   * PUT refund: records the refund once per refund ID ('' is the transaction's one refund); a
   * full refund applies the configured downgrade (`refunded`). 409 invalid_amount.
   */
  async refund(
    scope: ExternalScope,
    userId: number,
    externalId: string,
    refund: { amount?: number; refundId: string; reason: string },
  ): Promise<ExternalOutcome> {
    assertStorable({ refund_id: refund.refundId, reason: refund.reason });
    const transaction = await this.owned(scope.resourceId, userId, externalId);
    const id = refund.refundId || `${externalId}:refund`;
    let current = transaction;
    if (!transaction.refunds.some((existing) => existing.id === id)) {
      const left = transaction.amount - transaction.amount_refunded;
      const amount = refund.amount ?? left;
      if (amount <= 0 || amount > left) throw invalidRefundAmount();
      const refunds: RefundRecord[] = [...transaction.refunds, { id, amount, reason: refund.reason || null, created_at: new Date() }];
      const refunded = refunds.reduce((sum, row) => sum + row.amount, 0);
      current =
        (await this.deps.transactions.setRefunds(transaction._id, refunds, refunded, refunded >= transaction.amount)) ?? transaction;
    }
    if (current.status !== 'refunded')
      return { transaction: current, membership: await this.membershipOf(current), fallback: null, created: false };
    return { transaction: current, ...(await this.applyDowngrade(scope, current, 'refunded')), created: false };
  }

  /**
   * `delay_downgrade`: the membership stops renewing and runs to its end. Otherwise it ends now
   * and the resource's default Pricing (`default_subscription_id`) is given, if any.
   */
  private async applyDowngrade(
    scope: ExternalScope,
    transaction: TransactionRecord,
    reason: 'downgraded' | 'refunded',
  ): Promise<{ membership: Membership | null; fallback: Membership | null }> {
    const current = await this.membershipOf(transaction);
    if (!current?.active) return { membership: current, fallback: null };
    if (scope.settings.delayDowngrade) {
      const membership = await this.deps.memberships.changeMembershipTerms({
        resourceId: transaction.resource_id,
        userId: transaction.user_id,
        membershipId: current.id,
        autorenew: false,
      });
      return { membership, fallback: null };
    }
    const membership = await this.end(transaction, current, reason);
    return { membership, fallback: await this.fallback(scope, transaction.user_id) };
  }

  private async fallback(scope: ExternalScope, userId: number): Promise<Membership | null> {
    const pricingId = scope.settings.defaultPricingId;
    if (pricingId <= 0) return null;
    await this.deps.memberships.attachDefaultMembership({ resourceId: scope.resourceId, userId, pricingId, singleSubscription: false });
    const held = await this.deps.memberships.listMemberships({ resourceId: scope.resourceId, userId, includeHistory: false }, READ);
    return held.items.find((membership) => membership.active && membership.pricing?.id === pricingId) ?? null;
  }

  private end(transaction: TransactionRecord, membership: Membership, reason: 'downgraded' | 'refunded' | 'changed'): Promise<Membership> {
    return this.deps.memberships.endMembership({
      resourceId: transaction.resource_id,
      userId: transaction.user_id,
      membershipId: membership.id,
      reason,
    });
  }

  /**
   * The store's membership: catalog's GrantMembership (idempotent: a member holding the Pricing
   * gets that membership back); a later end date than the held one extends it.
   */
  private async grant(
    transaction: TransactionRecord,
    pricingId: number,
    terms: { endDate?: string; autorenew?: boolean },
  ): Promise<Membership> {
    const target = { resourceId: transaction.resource_id, userId: transaction.user_id };
    let membership = await this.deps.memberships.grantMembership({
      ...target,
      pricingId,
      autorenew: terms.autorenew ?? false,
      endDate: terms.endDate,
      source: 'external',
    });
    if (terms.endDate && (!membership.subscriptionEndDate || Date.parse(membership.subscriptionEndDate) < Date.parse(terms.endDate))) {
      membership = await this.deps.memberships.changeMembershipTerms({ ...target, membershipId: membership.id, endDate: terms.endDate });
    }
    await this.deps.transactions.markFulfilled(transaction._id, 0, membership.id);
    return membership;
  }

  private async membershipOf(transaction: TransactionRecord): Promise<Membership | null> {
    const membershipId = transaction.purchases[0]?.fulfilled_id;
    if (!membershipId) return null;
    return this.deps.memberships.getMembership({ resourceId: transaction.resource_id, userId: transaction.user_id, membershipId }, READ);
  }

  private async owned(resourceId: number, userId: number, externalId: string): Promise<TransactionRecord> {
    const transaction = await this.find(resourceId, externalId);
    if (transaction.user_id !== userId) throw getTransactionError();
    return transaction;
  }

  /** The member, who must have a relationship with the resource: 404 user_not_found. */
  private async member(resourceId: number, userId: number): Promise<{ email: string; name: string }> {
    try {
      const [profile, resources] = await Promise.all([
        this.deps.identity.getProfile({ userId, resourceId: 0 }, READ),
        this.deps.identity.listUserResources({ userId }, READ),
      ]);
      if (!profile.user || !resources.resourceIds.includes(resourceId)) throw externalUserNotFound();
      const user = profile.user;
      return { email: user.email, name: [user.firstName, user.lastName].filter(Boolean).join(' ') };
    } catch (error) {
      if (isServiceError(error) && error.status === 404) throw externalUserNotFound();
      throw error;
    }
  }

  private pricing(resourceId: number, choice: PricingChoice): Promise<Pricing> {
    return choice.productId
      ? this.deps.pricings.findPricingByExternalSource({ resourceId, externalSourceId: choice.productId }, READ)
      : this.deps.pricings.getPricing({ resourceId, pricingId: choice.pricingId }, READ);
  }
}
