import { randomBytes } from 'node:crypto';
import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import '@masthead/service-testkit';
import Stripe from 'stripe';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { cardProviderClient } from '../src/card-provider/client.js';
import { loadBillingConfig } from '../src/config.js';

/**
 * The real `stripe` SDK, configured the way billing configures it, against the run's card-provider
 * fakes (tests/stack global setup). These pin what billing may rely on, quirks included
 * (docs/adr/0110): when a fake changes, this file says what moved.
 */
const clientFor = (apiBase: string): Stripe => {
  if (!apiBase) throw new Error('the card-provider fake did not start; see the warning at the start of the run');
  return cardProviderClient(loadBillingConfig({ MASTHEAD_ENV: 'test', CARDPROVIDER_API_BASE: apiBase }), FAKE_PROVIDER_KEY);
};
const uniqueEmail = () => `member-${randomBytes(6).toString('hex')}@example.test`;

describe('localstripe through the SDK', () => {
  let provider: Stripe;
  beforeAll(() => {
    provider = clientFor(inject('localStripeUrl'));
  });

  it('keeps a customer, its saved card, a SetupIntent and an off-session PaymentIntent', async () => {
    const email = uniqueEmail();
    const customer = await provider.customers.create({ email, metadata: { member: '7' } });
    expect(customer).toMatchObject({ id: expect.stringMatching(/^cus_/), email, metadata: { member: '7' } });

    const card = await provider.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    expect(card).toMatchObject({ id: expect.stringMatching(/^pm_/), customer: customer.id, card: { last4: '4242', exp_year: 2030 } });

    const setup = await provider.setupIntents.create({ customer: customer.id, usage: 'off_session' });
    expect(setup).toMatchObject({ status: 'requires_payment_method', client_secret: expect.stringMatching(/^seti_\w+_secret_\w+$/) });
    const confirmed = await provider.setupIntents.confirm(setup.id, { payment_method: card.id });
    expect(confirmed).toMatchObject({ id: setup.id, status: 'succeeded', payment_method: card.id });

    const updated = await provider.customers.update(customer.id, { invoice_settings: { default_payment_method: card.id } });
    expect(updated.invoice_settings.default_payment_method).toBe(card.id);
    const saved = await provider.paymentMethods.list({ customer: customer.id, type: 'card' });
    expect(saved.data.map((method) => method.id)).toEqual([card.id]);

    const payment = await provider.paymentIntents.create(
      { amount: 19900, currency: 'usd', customer: customer.id, payment_method: card.id, confirm: true, off_session: true },
      { idempotencyKey: `payment-${customer.id}` },
    );
    expect(payment).toMatchObject({ status: 'succeeded', amount: 19900, currency: 'usd', customer: customer.id });
    const charges = await provider.charges.list({ customer: customer.id });
    expect(charges.data).toEqual([expect.objectContaining({ amount: 19900, payment_intent: payment.id, status: 'succeeded' })]);

    const customers = await provider.customers.list({ email });
    expect(customers.data.map((found) => found.id)).toEqual([customer.id]);
  });

  it('does not honour Idempotency-Key: a repeated key creates a second customer (at-most-once is ours to prove)', async () => {
    const email = uniqueEmail();
    const key = `customer-${email}`;
    const [first, second] = [
      await provider.customers.create({ email }, { idempotencyKey: key }),
      await provider.customers.create({ email }, { idempotencyKey: key }),
    ];
    expect(second.id).not.toBe(first.id);
    expect((await provider.customers.list({ email })).data).toHaveLength(2);
  });

  it('confirms a SetupIntent without attaching its payment method to the customer', async () => {
    const customer = await provider.customers.create({ email: uniqueEmail() });
    const setup = await provider.setupIntents.create({ customer: customer.id });
    const confirmed = await provider.setupIntents.confirm(setup.id, { payment_method: 'pm_card_visa' });
    expect(confirmed.status).toBe('succeeded');
    expect((await provider.paymentMethods.retrieve(String(confirmed.payment_method))).customer).toBeNull();
  });

  it('declines test cards as the provider does, with the card error the SDK raises', async () => {
    const customer = await provider.customers.create({ email: uniqueEmail() });
    const failing = await provider.paymentMethods.attach('pm_card_chargeCustomerFail', { customer: customer.id });
    const declined = provider.paymentIntents.create({
      amount: 500,
      currency: 'usd',
      customer: customer.id,
      payment_method: failing.id,
      confirm: true,
      off_session: true,
    });
    await expect(declined).rejects.toMatchObject({ type: 'StripeCardError', statusCode: 402, code: 'card_declined' });
  });
});

describe('stripe-mock through the SDK', () => {
  let provider: Stripe;
  beforeAll(() => {
    provider = clientFor(inject('stripeMockUrl'));
  });

  it('accepts a request the OpenAPI document allows', async () => {
    const intent = await provider.setupIntents.create({ customer: 'cus_123', usage: 'off_session' });
    expect(intent.object).toBe('setup_intent');
  });

  it('rejects a request the OpenAPI document does not allow with a 400', async () => {
    // `amount` is required; the type allows leaving it out only through a cast.
    const invalid = provider.paymentIntents.create({ currency: 'usd' } as Stripe.PaymentIntentCreateParams);
    await expect(invalid).rejects.toMatchObject({
      type: 'StripeInvalidRequestError',
      statusCode: 400,
      message: expect.stringMatching(/'amount' is required/),
    });
    const unknown = provider.customers.create({ nickname: 'x' } as Stripe.CustomerCreateParams);
    await expect(unknown).rejects.toMatchObject({
      statusCode: 400,
      message: expect.stringMatching(/additional properties are not allowed/),
    });
  });
});
