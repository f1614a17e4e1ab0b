import { createClient, createClients } from '@masthead/core/clients';
import type { Logger } from '@masthead/core/logging';
import { openServiceRuntime, serveRuntime, type RunningService } from '@masthead/core/service';
import { BillingServiceService } from '@masthead/proto/billing';
import { AccountRequestPaymentServiceService } from '@masthead/proto/billing/account_request_payments';
import { CheckoutServiceService } from '@masthead/proto/billing/checkout';
import { CardProviderConnectServiceService } from '@masthead/proto/billing/connect';
import { ExternalPurchaseServiceService } from '@masthead/proto/billing/external';
import { CardProviderConnectionServiceService } from '@masthead/proto/billing/connection';
import { LegacySourceServiceService } from '@masthead/proto/billing/legacy_sources';
import { PaymentSourceServiceService } from '@masthead/proto/billing/payment_sources';
import { PromoCodeServiceService } from '@masthead/proto/billing/promos';
import { OwedRefundServiceService } from '@masthead/proto/billing/refunds';
import { RenewalServiceService } from '@masthead/proto/billing/renewals';
import { WebhookServiceService } from '@masthead/proto/billing/webhooks';
import { TransactionServiceService } from '@masthead/proto/billing/transactions';
import { AttachAttemptGate } from './attach-attempts/attach-attempt.gate.js';
import { AccountRequestPaymentService } from './account-requests/account-request-payment.service.js';
import { ProviderAccess } from './card-provider/provider-access.js';
import { stripeConnectOAuth, type ConnectOAuthFactory } from './card-provider/connect-oauth.js';
import { stripeCardProviders, type CardProviderFactory } from './card-provider/stripe-card-provider.js';
import { CheckoutService } from './checkout/checkout.service.js';
import { FulfilmentRegistry } from './checkout/fulfilment.js';
import { HoldRepository } from './checkout/hold.repository.js';
import { GiftFulfilment } from './checkout/gift.fulfilment.js';
import { PricingFulfilment } from './checkout/pricing.fulfilment.js';
import { TicketFulfilment } from './checkout/ticket.fulfilment.js';
import { keyRingOf, type BillingConfig } from './config.js';
import { ConnectStateRepository } from './connections/connect-state.repository.js';
import { ConnectService } from './connections/connect.service.js';
import { ConnectionRepository } from './connections/connection.repository.js';
import { ConnectionService } from './connections/connection.service.js';
import { CustomerService } from './customers/customer.service.js';
import { OwnCustomers } from './customers/own-customers.js';
import { PaymentCustomerRepository } from './customers/payment-customer.repository.js';
import { accountRequestPaymentHandlers } from './grpc/account-request-payments.handlers.js';
import { connectHandlers } from './grpc/connect.handlers.js';
import { connectionHandlers } from './grpc/connection.handlers.js';
import { legacySourceHandlers } from './grpc/legacy-sources.handlers.js';
import { ExternalPurchaseService } from './external/external-purchase.service.js';
import { checkoutHandlers } from './grpc/checkout.handlers.js';
import { externalHandlers } from './grpc/external.handlers.js';
import { paymentSourceHandlers } from './grpc/payment-sources.handlers.js';
import { promoHandlers } from './grpc/promos.handlers.js';
import { owedRefundHandlers } from './grpc/refunds.handlers.js';
import { renewalHandlers } from './grpc/renewals.handlers.js';
import { webhookHandlers } from './grpc/webhooks.handlers.js';
import { WebhookEventRepository } from './webhooks/webhook-event.repository.js';
import { WebhookService } from './webhooks/webhook.service.js';
import { RenewalRepository } from './renewals/renewal.repository.js';
import { RenewalService } from './renewals/renewal.service.js';
import { SponsoredActivations } from './renewals/sponsored-activations.js';
import { transactionHandlers } from './grpc/transactions.handlers.js';
import { ResourceTransactionsReader } from './member-views/resource-transactions.reader.js';
import { ChargeSources } from './payments/charge-source.js';
import { PaymentRunner } from './payments/payment.runner.js';
import { PromoRepository } from './promos/promo.repository.js';
import { AbandonedUses } from './promos/abandoned-uses.js';
import { claimHolders } from './checkout/claim-holder.js';
import { PromoService } from './promos/promo.service.js';
import { ProviderWriteLedger } from './provider-writes/provider-write.ledger.js';
import { DueRefundRepository } from './refunds/refund.repository.js';
import { PurchaseRevocation } from './refunds/purchase-revocation.js';
import { refundKey, RefundService } from './refunds/refund.service.js';
import { RefundWriteOffRepository } from './refunds/write-off.repository.js';
import { SourceRepository } from './sources/source.repository.js';
import { LegacySourceService } from './sources/legacy.service.js';
import { SourceService } from './sources/source.service.js';
import { SETTLED, TransactionRepository } from './transactions/transaction.repository.js';
import { TransactionService } from './transactions/transaction.service.js';

export type { BillingConfig } from './config.js';
export { billingEnv, loadBillingConfig } from './config.js';

/** Test seams: a crash between a provider write and its record (docs/adr/0121). */
export interface BillingHooks {
  afterProviderWrite?: (key: string) => Promise<void>;
  providers?: CardProviderFactory;
  connectOAuth?: ConnectOAuthFactory;
  /** The clock checkout, promo windows and renewals read (tests drive renewals with it). */
  now?: () => Date;
}

/**
 * A hold or a promo use without a transaction this old lost its checkout (a crash before the
 * transaction was recorded); a checkout's request ends long before.
 */
const HOLD_LEASE_MS = 60_000;

/**
 * Composition root: config → connections → repositories → domain → gRPC handlers. Billing serves
 * one gRPC service per area (proto/defs/masthead/billing/v1).
 */
export async function startBillingService(config: BillingConfig, logger?: Logger, hooks: BillingHooks = {}): Promise<RunningService> {
  const runtime = await openServiceRuntime('billing', config, logger);
  const now = hooks.now ?? (() => new Date());
  const accountRequests = createClient(
    'accountRequests',
    { accounts: config.ACCOUNTS_ADDR },
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS },
  );
  const catalog = createClients(
    ['pricings', 'memberships'],
    { catalog: config.CATALOG_ADDR },
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS },
  );
  const community = createClients(
    ['ticketSales', 'sponsorships'],
    { community: config.COMMUNITY_ADDR },
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS },
  );
  const peers = createClients(
    ['accounts', 'identity'],
    { accounts: config.ACCOUNTS_ADDR, identity: config.IDENTITY_ADDR },
    { defaultDeadlineMs: config.GRPC_DEADLINE_MS },
  );

  const connectionRows = new ConnectionRepository(runtime.db);
  const customerRows = new PaymentCustomerRepository(runtime.db);
  const sourceRows = new SourceRepository(runtime.db);
  const attempts = new AttachAttemptGate(runtime.db);
  const connectStates = new ConnectStateRepository(runtime.db);
  const transactionRows = new TransactionRepository(runtime.db);
  const promoRows = new PromoRepository(runtime.db);
  const holds = new HoldRepository(runtime.db);
  const renewalRows = new RenewalRepository(runtime.db);
  const webhookEvents = new WebhookEventRepository(runtime.db);
  const dueRefunds = new DueRefundRepository(runtime.db);
  const refundWriteOffs = new RefundWriteOffRepository(runtime.db);
  const ledger = new ProviderWriteLedger(runtime.db, {
    // A holder finishes or fails within one provider deadline (plus its own lookups).
    staleAfterMs: 3 * config.CARDPROVIDER_TIMEOUT_MS,
    // Below the caller's deadline, so a waiting duplicate answers before it gives up.
    waitMs: Math.max(500, config.GRPC_DEADLINE_MS - config.CARDPROVIDER_TIMEOUT_MS),
    afterProviderWrite: hooks.afterProviderWrite,
  });
  await Promise.all(
    [
      connectionRows,
      customerRows,
      sourceRows,
      ledger,
      attempts,
      connectStates,
      transactionRows,
      promoRows,
      holds,
      renewalRows,
      webhookEvents,
      dueRefunds,
      refundWriteOffs,
    ].map((repository) => repository.ready()),
  );

  const connections = new ConnectionService({
    connections: connectionRows,
    ring: keyRingOf(config),
    logger: runtime.logger,
  });
  if (!keyRingOf(config)) runtime.logger.warn('BILLING_SECRETS_KEYS is not set: card-provider secret keys can be neither stored nor used');
  const resealed = await connections.resealAll();
  if (resealed > 0) runtime.logger.info({ resealed }, 'card-provider secrets re-sealed with the current key');
  const providers = new ProviderAccess(connections, hooks.providers ?? stripeCardProviders(config));
  const customers = new CustomerService({ customers: customerRows, providers, ledger });
  const owners = new OwnCustomers({ customers: customerRows, providers });
  const sources = new SourceService({
    customers: customerRows,
    owners,
    sources: sourceRows,
    providers,
    events: runtime.events,
    logger: runtime.logger,
  });
  const legacy = new LegacySourceService({ customers: customerRows, owners, sources: sourceRows, providers, ledger });
  const connect = new ConnectService({
    connections,
    rows: connectionRows,
    states: connectStates,
    ledger,
    oauth: hooks.connectOAuth ?? stripeConnectOAuth(config),
    config,
  });
  const payments = new AccountRequestPaymentService({ accountRequests, providers, ledger, logger: runtime.logger });
  const holderOf = claimHolders(transactionRows, now, HOLD_LEASE_MS);
  const promos = new PromoService({
    promos: promoRows,
    abandoned: new AbandonedUses({
      promos: promoRows,
      intervalMs: HOLD_LEASE_MS,
      now,
      holderState: async (claimKey, claimedAt) => (await holderOf(claimKey, claimedAt)).state,
    }),
  });
  const paymentRunner = new PaymentRunner({ providers, ledger });
  const chargeSources = new ChargeSources({ customers: customerRows, sources: sourceRows, owners });
  const renewals = new RenewalService({
    renewals: renewalRows,
    transactions: transactionRows,
    chargeSources,
    payments: paymentRunner,
    memberships: catalog.memberships,
    sponsorships: community.sponsorships,
    events: runtime.events,
    logger: runtime.logger,
    now,
    retryHours: config.RENEWAL_RETRY_HOURS,
    batch: config.RENEWAL_BATCH,
  });
  const pricingFulfilment = new PricingFulfilment({
    pricings: catalog.pricings,
    memberships: catalog.memberships,
    holds,
    onGranted: (sold) => renewals.trackSale(sold),
    // A hold is over when its checkout is gone, or settled and granted everything.
    isStale: async (claimKey, heldSince) => {
      const holder = await holderOf(claimKey, heldSince);
      if (holder.state !== 'recorded') return holder.state !== 'running';
      const { status, purchases } = holder.transaction;
      return (
        SETTLED.includes(status) &&
        purchases.every((purchase) => purchase.fulfilled_id !== null || !!purchase.unfulfilled || !!purchase.revoked)
      );
    },
  });
  const fulfilments = new FulfilmentRegistry([
    pricingFulfilment,
    new TicketFulfilment({ ticketSales: community.ticketSales, logger: runtime.logger }),
    new GiftFulfilment({ pricings: catalog.pricings, sponsorships: community.sponsorships }),
  ]);
  const revocation = new PurchaseRevocation({ transactions: transactionRows, fulfilments, refundKeyOf: refundKey, logger: runtime.logger });
  const refunds = new RefundService({
    transactions: transactionRows,
    dues: dueRefunds,
    writeOffs: refundWriteOffs,
    providers,
    ledger,
    revocation,
    events: runtime.events,
    logger: runtime.logger,
    batch: config.REFUND_BATCH,
    now,
  });
  const checkout = new CheckoutService({
    fulfilments,
    promos,
    transactions: transactionRows,
    chargeSources,
    payments: paymentRunner,
    refunds,
    revocation,
    events: runtime.events,
    logger: runtime.logger,
    now,
  });
  const transactions = new TransactionService({ transactions: transactionRows });
  const webhooks = new WebhookService({
    secrets: config.CARDPROVIDER_WEBHOOK_SECRETS,
    events: webhookEvents,
    transactions: transactionRows,
    providers,
    checkout,
    payments: paymentRunner,
    refunds,
    revocation,
    publisher: runtime.events,
    logger: runtime.logger,
  });
  const external = new ExternalPurchaseService({
    transactions: transactionRows,
    pricings: catalog.pricings,
    memberships: catalog.memberships,
    identity: peers.identity,
  });

  const sponsoredActivations = new SponsoredActivations({
    nats: runtime.nats,
    renewals,
    logger: runtime.logger,
    durablePrefix: config.MONGO_DB_PREFIX,
    streamReplicas: config.EVENT_STREAM_REPLICAS,
  });
  sponsoredActivations.start();

  // Started here, outside any call: a pass must not inherit a request's deadline (ADR 0100).
  const passEvery = (ms: number, pass: () => Promise<unknown>, name: string) => {
    if (ms <= 0) return undefined;
    const timer = setInterval(() => {
      pass().catch((error: unknown) => runtime.logger.warn({ err: error }, `${name} pass failed`));
    }, ms);
    timer.unref();
    return timer;
  };
  const renewalTimer = passEvery(config.RENEWAL_INTERVAL_MS, () => renewals.runDue(), 'renewal');
  // Refunds the provider could not make when they were owed (docs/adr/0201).
  const refundTimer = passEvery(config.REFUND_RETRY_INTERVAL_MS, () => refunds.runOwed(), 'refund');

  return serveRuntime(
    runtime,
    config.GRPC_LISTEN,
    [
      { name: 'masthead.billing.v1.BillingService', definition: BillingServiceService, implementation: {} },
      {
        name: 'masthead.billing.v1.PaymentSourceService',
        definition: PaymentSourceServiceService,
        implementation: paymentSourceHandlers(customers, sources),
      },
      {
        name: 'masthead.billing.v1.LegacySourceService',
        definition: LegacySourceServiceService,
        implementation: legacySourceHandlers(legacy, attempts),
      },
      {
        name: 'masthead.billing.v1.CardProviderConnectionService',
        definition: CardProviderConnectionServiceService,
        implementation: connectionHandlers(connections),
      },
      {
        name: 'masthead.billing.v1.CardProviderConnectService',
        definition: CardProviderConnectServiceService,
        implementation: connectHandlers(connect),
      },
      {
        name: 'masthead.billing.v1.AccountRequestPaymentService',
        definition: AccountRequestPaymentServiceService,
        implementation: accountRequestPaymentHandlers(payments),
      },
      { name: 'masthead.billing.v1.CheckoutService', definition: CheckoutServiceService, implementation: checkoutHandlers(checkout) },
      {
        name: 'masthead.billing.v1.TransactionService',
        definition: TransactionServiceService,
        implementation: transactionHandlers(
          transactions,
          new ResourceTransactionsReader({ transactions: transactionRows, accounts: peers.accounts, identity: peers.identity }),
        ),
      },
      { name: 'masthead.billing.v1.PromoCodeService', definition: PromoCodeServiceService, implementation: promoHandlers(promos) },
      { name: 'masthead.billing.v1.OwedRefundService', definition: OwedRefundServiceService, implementation: owedRefundHandlers(refunds) },
      { name: 'masthead.billing.v1.RenewalService', definition: RenewalServiceService, implementation: renewalHandlers(renewals) },
      { name: 'masthead.billing.v1.WebhookService', definition: WebhookServiceService, implementation: webhookHandlers(webhooks) },
      {
        name: 'masthead.billing.v1.ExternalPurchaseService',
        definition: ExternalPurchaseServiceService,
        implementation: externalHandlers(external),
      },
    ],
    async () => {
      clearInterval(renewalTimer);
      clearInterval(refundTimer);
      await sponsoredActivations.stop();
      accountRequests.close();
      catalog.close();
      community.close();
      peers.close();
    },
  );
}
