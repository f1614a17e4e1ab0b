import Stripe from 'stripe';
import type { BillingConfig } from '../config.js';
import {
  CardProviderFailure,
  KEY_METADATA,
  type CardProvider,
  type NewCharge,
  type NewCustomer,
  type NewPayment,
  type NewRefund,
  type ProviderCharge,
  type ProviderPayment,
  type ProviderRefund,
  type ProviderCard,
  type ProviderCustomer,
  type ProviderDispute,
  type ProviderMethod,
  type ProviderSetupIntent,
  type ProviderToken,
} from './card-provider.js';
import { cardProviderClient } from './client.js';

type ProviderConfig = Pick<BillingConfig, 'CARDPROVIDER_API_BASE' | 'CARDPROVIDER_TIMEOUT_MS'>;

/** How far back `find…ByKey` looks: an earlier attempt of the same write is recent. */
const FIND_PAGE = 100;

const toCard = (card: {
  id: string;
  brand?: string | null;
  country?: string | null;
  last4?: string | null;
  exp_month?: number | null;
  exp_year?: number | null;
}): ProviderCard => ({
  id: card.id,
  brand: card.brand ?? '',
  country: card.country ?? '',
  last4: card.last4 ?? '',
  expMonth: card.exp_month ?? 0,
  expYear: card.exp_year ?? 0,
});

const toMethod = (method: Stripe.PaymentMethod): ProviderMethod => ({
  id: method.id,
  type: method.type,
  customer: typeof method.customer === 'string' ? method.customer : (method.customer?.id ?? null),
  card: method.card ? toCard({ id: method.id, ...method.card }) : null,
});

function toCustomer(customer: Stripe.Customer): ProviderCustomer {
  const sources = (customer as { sources?: { data?: Array<Record<string, unknown>> } }).sources?.data ?? [];
  const cards = sources
    .filter((source) => source['object'] === 'card')
    .map((source) => toCard(source as unknown as ProviderCard & { id: string }));
  return { id: customer.id, email: customer.email ?? null, key: keyOf(customer.metadata), cards };
}

const idOf = (value: string | { id: string } | null | undefined): string | null =>
  typeof value === 'string' ? value : (value?.id ?? null);

/** Billing's idempotency key in an object's metadata, if it carries one. */
const keyOf = (metadata: Stripe.Metadata | null | undefined): string | null => metadata?.[KEY_METADATA] ?? null;

/** The object, or null when the provider has none by that ID (404); other failures throw. */
async function unlessMissing<T>(call: () => Promise<T>): Promise<T | null> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404) return null;
    throw error;
  }
}

/** An intent's status in billing's words; we always confirm at once and capture automatically. */
function intentStatus(status: string): ProviderPayment['status'] {
  if (status === 'succeeded' || status === 'requires_action' || status === 'processing' || status === 'canceled') return status;
  return status === 'requires_payment_method' ? 'failed' : 'processing';
}

function fromIntent(intent: Stripe.PaymentIntent): ProviderPayment {
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const status = intentStatus(intent.status);
  return {
    id: intent.id,
    status,
    chargeId: idOf(intent.latest_charge),
    clientSecret: status === 'requires_action' ? intent.client_secret : null,
    failureCode: status === 'failed' ? (intent.last_payment_error?.code ?? 'payment_failed') : null,
    failureMessage: status === 'failed' ? (intent.last_payment_error?.message ?? null) : null,
    amount: intent.amount,
    amountRefunded: charge?.amount_refunded ?? 0,
    currency: intent.currency,
    key: keyOf(intent.metadata),
  };
}

function fromCharge(charge: Stripe.Charge): ProviderPayment {
  const status = charge.status === 'succeeded' ? 'succeeded' : charge.status === 'failed' ? 'failed' : 'processing';
  return {
    id: charge.id,
    status,
    chargeId: charge.id,
    clientSecret: null,
    failureCode: status === 'failed' ? (charge.failure_code ?? 'payment_failed') : null,
    failureMessage: status === 'failed' ? (charge.failure_message ?? null) : null,
    amount: charge.amount,
    amountRefunded: charge.amount_refunded ?? 0,
    currency: charge.currency,
    key: keyOf(charge.metadata),
  };
}

const toProviderCharge = (charge: Stripe.Charge): ProviderCharge => ({
  id: charge.id,
  paymentIntent: idOf(charge.payment_intent),
  amount: charge.amount,
  amountRefunded: charge.amount_refunded ?? 0,
  refunded: charge.refunded === true,
  disputed: charge.disputed === true,
  status: charge.status,
  refunds: (charge.refunds?.data ?? [])
    .map((refund) => ({
      id: refund.id,
      amount: refund.amount,
      created: new Date(refund.created * 1000),
      reason: refund.reason ?? null,
      key: refund.metadata?.[KEY_METADATA] ?? null,
    }))
    .sort((a, b) => a.created.getTime() - b.created.getTime()),
});

const toRefund = (refund: Stripe.Refund): ProviderRefund => ({
  id: refund.id,
  chargeId: idOf(refund.charge),
  amount: refund.amount,
  status: refund.status ?? 'succeeded',
});

/** The refund parameter naming a payment: a legacy charge by `charge`, an intent by `payment_intent`. */
const refundedPayment = (payment: string): { charge: string } | { payment_intent: string } =>
  payment.startsWith('ch_') ? { charge: payment } : { payment_intent: payment };

/** SDK errors become CardProviderFailure with the provider's message and code, never the key. */
async function guarded<T>(operation: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof CardProviderFailure) throw error;
    if (error instanceof Stripe.errors.StripeError) {
      throw new CardProviderFailure(`${operation}: ${error.message}`, error.code ?? null, error.statusCode ?? null);
    }
    throw new CardProviderFailure(`${operation}: ${(error as Error).message}`, null, null);
  }
}

/**
 * The card provider through the `stripe` SDK, acting with one resource's secret key in one mode.
 * Only parameters both the real provider and the local fake accept are sent (docs/adr/0110).
 */
export class StripeCardProvider implements CardProvider {
  private readonly client: Stripe;

  constructor(config: ProviderConfig, secretKey: string) {
    this.client = cardProviderClient(config, secretKey);
  }

  createCustomer(customer: NewCustomer, key: string): Promise<ProviderCustomer> {
    const params: Stripe.CustomerCreateParams = { email: customer.email, name: customer.name, metadata: { [KEY_METADATA]: key } };
    if (customer.source) params.source = customer.source;
    return guarded('create customer', async () => toCustomer(await this.client.customers.create(params, { idempotencyKey: key })));
  }

  findCustomerByKey(email: string, key: string): Promise<ProviderCustomer | null> {
    return guarded('find customer', async () => {
      const page = await this.client.customers.list({ email, limit: FIND_PAGE });
      const found = page.data.find((customer) => customer.metadata?.[KEY_METADATA] === key);
      return found ? toCustomer(found) : null;
    });
  }

  createSetupIntent(customer: string, key: string): Promise<Record<string, unknown>> {
    // No payment_method_types: the real provider then offers the resource's automatic payment
    // methods; `automatic_payment_methods` itself is refused by the fake at create (ADR 0110).
    return guarded('create setup intent', async () => {
      const intent = await this.client.setupIntents.create(
        { customer, usage: 'off_session', metadata: { [KEY_METADATA]: key } },
        { idempotencyKey: key },
      );
      return JSON.parse(JSON.stringify(intent)) as Record<string, unknown>;
    });
  }

  retrieveMethod(id: string): Promise<ProviderMethod | null> {
    return guarded('retrieve payment method', async () => {
      const method = await unlessMissing(() => this.client.paymentMethods.retrieve(id));
      return method ? toMethod(method) : null;
    });
  }

  retrieveSetupIntent(id: string): Promise<ProviderSetupIntent | null> {
    return guarded('retrieve setup intent', async () => {
      const intent = await unlessMissing(() => this.client.setupIntents.retrieve(id));
      return intent
        ? { id: intent.id, customer: idOf(intent.customer), paymentMethod: idOf(intent.payment_method), status: intent.status }
        : null;
    });
  }

  attachMethod(id: string, customer: string, key: string): Promise<ProviderMethod> {
    return guarded('attach payment method', async () =>
      toMethod(await this.client.paymentMethods.attach(id, { customer }, { idempotencyKey: key })),
    );
  }

  async detachMethod(id: string, customer: string, key: string): Promise<boolean> {
    const method = await this.retrieveMethod(id);
    if (method?.customer !== customer) return false;
    await guarded('detach payment method', () => this.client.paymentMethods.detach(id, {}, { idempotencyKey: key }));
    return true;
  }

  retrieveToken(token: string): Promise<ProviderToken> {
    return guarded('retrieve token', async () => {
      const found = await this.client.tokens.retrieve(token);
      // The provider marks a used token; the fake does not, but its card then has a customer.
      return { id: found.id, cardId: found.card?.id ?? null, used: found.used === true || !!found.card?.customer };
    });
  }

  retrieveCustomer(id: string): Promise<ProviderCustomer | null> {
    return guarded('retrieve customer', async () => {
      const customer = await unlessMissing(() => this.client.customers.retrieve(id));
      return customer && !customer.deleted ? toCustomer(customer) : null;
    });
  }

  addCard(customer: string, token: string, key: string): Promise<ProviderCard> {
    return guarded('add card', async () => {
      const source = await this.client.customers.createSource(customer, { source: token }, { idempotencyKey: key });
      if (source.object !== 'card') throw new CardProviderFailure('add card: the token is not a card', null, null);
      return toCard(source);
    });
  }

  listCards(customer: string): Promise<ProviderCard[]> {
    return guarded('list cards', async () => {
      // No `limit`: localstripe refuses it on this list (400 "Unexpected limit"); the provider's
      // default page (10) holds a legacy customer's cards.
      const page = await this.client.customers.listSources(customer, { object: 'card' });
      return page.data.filter((source): source is Stripe.Card => source.object === 'card').map((card) => toCard(card));
    });
  }

  createCharge(charge: NewCharge, key: string): Promise<{ id: string; status: string }> {
    return guarded('create charge', async () => {
      const created = await this.client.charges.create(
        { customer: charge.customer, amount: charge.amount, currency: charge.currency, metadata: { [KEY_METADATA]: key } },
        { idempotencyKey: key },
      );
      return { id: created.id, status: created.status };
    });
  }

  findChargeByKey(customer: string, key: string): Promise<{ id: string; status: string } | null> {
    return guarded('find charge', async () => {
      const page = await this.client.charges.list({ customer, limit: FIND_PAGE });
      const found = page.data.find((charge) => charge.metadata?.[KEY_METADATA] === key);
      return found ? { id: found.id, status: found.status } : null;
    });
  }

  createPayment(payment: NewPayment, key: string): Promise<ProviderPayment> {
    const metadata = { [KEY_METADATA]: key };
    const currency = payment.currency.toLowerCase();
    if (payment.source.startsWith('card_')) {
      // A legacy card is charged directly; intents take payment methods (docs/adr/0142).
      return guarded('create charge', async () =>
        fromCharge(
          await this.client.charges.create(
            { customer: payment.customer, source: payment.source, amount: payment.amount, currency, metadata },
            { idempotencyKey: key },
          ),
        ),
      );
    }
    return guarded('create payment', async () => {
      // `payment_method_types: ['card']`: with automatic methods the provider would ask for a
      // return URL at confirmation; the fake refuses `automatic_payment_methods` (ADR 0110).
      // The SDK's types of this API version lack the parameter; the API and the fake take it.
      const params: Stripe.PaymentIntentCreateParams & { payment_method_types: string[] } = {
        amount: payment.amount,
        currency,
        customer: payment.customer,
        payment_method: payment.source,
        payment_method_types: ['card'],
        confirm: true,
        metadata,
      };
      if (payment.offSession) params.off_session = true;
      const intent = await this.client.paymentIntents.create(params, { idempotencyKey: key });
      return fromIntent(intent);
    });
  }

  findPaymentByKey(customer: string, key: string): Promise<ProviderPayment | null> {
    // The provider lists charges by customer; an intent is found through its charge (an intent
    // that never charged, one waiting for 3-D Secure, is not found: nothing was taken).
    return guarded('find payment', async () => {
      const page = await this.client.charges.list({ customer, limit: FIND_PAGE });
      const direct = page.data.find((charge) => charge.metadata?.[KEY_METADATA] === key);
      if (direct) return fromCharge(direct);
      const intents = [...new Set(page.data.map((charge) => idOf(charge.payment_intent)).filter((id): id is string => id !== null))];
      for (const id of intents) {
        const intent = await this.client.paymentIntents.retrieve(id, { expand: ['latest_charge'] });
        if (intent.metadata?.[KEY_METADATA] === key) return fromIntent(intent);
      }
      return null;
    });
  }

  retrievePayment(id: string): Promise<ProviderPayment> {
    return guarded('retrieve payment', async () =>
      id.startsWith('ch_')
        ? fromCharge(await this.client.charges.retrieve(id))
        : fromIntent(await this.client.paymentIntents.retrieve(id, { expand: ['latest_charge'] })),
    );
  }

  retrieveCharge(id: string): Promise<ProviderCharge> {
    // `refunds` is no longer in the charge by default on the provider: expanded (the fake has it anyway).
    return guarded('retrieve charge', async () => toProviderCharge(await this.client.charges.retrieve(id, { expand: ['refunds'] })));
  }

  retrieveDispute(id: string): Promise<ProviderDispute | null> {
    return guarded('retrieve dispute', async () => {
      const dispute = await unlessMissing(() => this.client.disputes.retrieve(id));
      return dispute
        ? { id: dispute.id, chargeId: idOf(dispute.charge), paymentIntent: idOf(dispute.payment_intent), status: dispute.status }
        : null;
    });
  }

  createRefund(refund: NewRefund, key: string): Promise<ProviderRefund> {
    // No `reason`: the provider's three (duplicate, fraudulent, requested_by_customer) fit no
    // refund billing makes, and the fake refuses the parameter.
    return guarded('create refund', async () =>
      toRefund(
        await this.client.refunds.create(
          { ...refundedPayment(refund.payment), amount: refund.amount, metadata: { [KEY_METADATA]: key } },
          { idempotencyKey: key },
        ),
      ),
    );
  }

  findRefundByKey(payment: string, key: string): Promise<ProviderRefund | null> {
    return guarded('find refund', async () => {
      const page = await this.client.refunds.list({ ...refundedPayment(payment), limit: FIND_PAGE });
      const found = page.data.find((refund) => refund.metadata?.[KEY_METADATA] === key);
      return found ? toRefund(found) : null;
    });
  }
}

/** Builds the adapter for one secret key (so tests and the service share one construction). */
export type CardProviderFactory = (secretKey: string) => CardProvider;

export const stripeCardProviders =
  (config: ProviderConfig): CardProviderFactory =>
  (secretKey) =>
    new StripeCardProvider(config, secretKey);
