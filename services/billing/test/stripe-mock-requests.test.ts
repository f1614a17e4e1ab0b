import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import '@masthead/service-testkit';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { StripeCardProvider } from '../src/card-provider/stripe-card-provider.js';
import { loadBillingConfig } from '../src/config.js';

/**
 * Every request billing's adapter sends, validated by stripe-mock against the provider's OpenAPI
 * document (ADR 0110): a parameter the real API would refuse answers 400 there, even where
 * localstripe accepts it. stripe-mock answers fixtures, so only the absence of errors is asserted.
 */
describe('card-provider adapter requests against stripe-mock', () => {
  let provider: StripeCardProvider;
  beforeAll(() => {
    const base = inject('stripeMockUrl');
    if (!base) throw new Error('stripe-mock did not start; see the warning at the start of the run');
    provider = new StripeCardProvider(loadBillingConfig({ MASTHEAD_ENV: 'test', CARDPROVIDER_API_BASE: base }), FAKE_PROVIDER_KEY);
  });
  const key = 'masthead:1:2:customer:test:v1';

  it('sends customer, setup-intent, method, token, source and charge requests the real API accepts', async () => {
    await expect(provider.createCustomer({ email: 'a@example.test', name: 'Ada' }, key)).resolves.toMatchObject({ id: expect.any(String) });
    await expect(
      provider.createCustomer({ email: 'a@example.test', name: 'Ada', source: 'tok_visa' }, `${key}:legacy`),
    ).resolves.toBeTruthy();
    // Lookups by key: a fixture list without our key finds nothing, and the request is valid.
    expect(await provider.findCustomerByKey('a@example.test', key)).toBeNull();
    await expect(provider.createSetupIntent('cus_123', 'masthead:1:2:setup-intent:cus_123:req:v1')).resolves.toMatchObject({
      id: expect.any(String),
    });
    await expect(provider.retrieveMethod('pm_123')).resolves.toMatchObject({ id: expect.any(String) });
    await expect(provider.attachMethod('pm_123', 'cus_123', 'masthead:1:2:attach:pm_123:cus_123:v1')).resolves.toBeTruthy();
    // Detaches only from the named customer: the fixture's method is attached to none, so no detach is sent.
    await expect(provider.detachMethod('pm_123', 'cus_123', 'masthead:1:2:detach:pm_123:v1')).resolves.toBe(false);
    await expect(provider.retrieveSetupIntent('seti_123')).resolves.toMatchObject({ id: expect.any(String) });
    await expect(provider.retrieveCustomer('cus_123')).resolves.toMatchObject({ id: expect.any(String) });
    await expect(provider.retrieveToken('tok_123')).resolves.toMatchObject({ id: expect.any(String), used: expect.any(Boolean) });
    await expect(provider.listCards('cus_123')).resolves.toBeInstanceOf(Array);
    await expect(
      provider.createCharge({ customer: 'cus_123', amount: 19900, currency: 'usd' }, 'masthead:deployment:account-request:1:charge:v1'),
    ).resolves.toBeTruthy();
    expect(await provider.findChargeByKey('cus_123', 'masthead:deployment:account-request:1:charge:v1')).toBeNull();
  });

  it('sends refund requests the real API accepts, for an intent and for a legacy charge', async () => {
    const refundKey = 'masthead:1:2:refund:3:0:v1';
    await expect(provider.createRefund({ payment: 'pi_123', amount: 2500 }, refundKey)).resolves.toMatchObject({ id: expect.any(String) });
    await expect(provider.createRefund({ payment: 'ch_123', amount: 2500 }, refundKey)).resolves.toMatchObject({ id: expect.any(String) });
    expect(await provider.findRefundByKey('pi_123', refundKey)).toBeNull();
    expect(await provider.findRefundByKey('ch_123', refundKey)).toBeNull();
  });

  it('reads disputes and charges as the webhook refetches them', async () => {
    await expect(provider.retrieveDispute('dp_123')).resolves.toMatchObject({ id: expect.any(String), status: expect.any(String) });
    await expect(provider.retrieveCharge('ch_123')).resolves.toMatchObject({ id: expect.any(String) });
  });
});
