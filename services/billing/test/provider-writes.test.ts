import { randomBytes } from 'node:crypto';
import { createServiceClient } from '@masthead/core/grpc';
import { FAKE_PROVIDER_KEY } from '@masthead/local-infra';
import { CardProviderConnectionServiceService } from '@masthead/proto/billing/connection';
import { PaymentSourceServiceService } from '@masthead/proto/billing/payment_sources';
import { startServiceHarness, type ServiceHarness } from '@masthead/service-testkit';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { loadBillingConfig, startBillingService } from '../src/app.js';
import { cardProviderClient } from '../src/card-provider/client.js';
import { ProviderWriteLedger } from '../src/provider-writes/provider-write.ledger.js';

/**
 * At-most-once provider writes (docs/adr/0121) and sealed secret keys (docs/adr/0120), on a
 * billing process over FerretDB and localstripe with a fault hook in the crash window: after the
 * provider wrote the customer, before billing recorded it and answered.
 */
describe('provider writes and connection secrets', () => {
  const RESOURCE = 4242;
  let harness: ServiceHarness<typeof PaymentSourceServiceService>;
  let provider: Stripe;
  let crashes = 0;
  const baseEnv = () => ({ MASTHEAD_ENV: 'test', CARDPROVIDER_API_BASE: inject('localStripeUrl') });
  const connectionsOf = (address: string) =>
    createServiceClient(CardProviderConnectionServiceService, address, { defaultDeadlineMs: 5000 });

  beforeAll(async () => {
    if (!inject('localStripeUrl')) throw new Error('localstripe did not start; see the warning at the start of the run');
    harness = await startServiceHarness({
      service: 'billing',
      definition: PaymentSourceServiceService,
      env: baseEnv(),
      start: (env) =>
        startBillingService(loadBillingConfig(env), undefined, {
          afterProviderWrite: async () => {
            if (crashes > 0) {
              crashes--;
              throw new Error('simulated crash between the provider write and its record');
            }
          },
        }),
    });
    const connections = connectionsOf(harness.address);
    await connections.setSecretKey({ resourceId: RESOURCE, mode: 'test', secretKey: FAKE_PROVIDER_KEY });
    connections.close();
    provider = cardProviderClient(loadBillingConfig(baseEnv()), FAKE_PROVIDER_KEY);
  });
  afterAll(() => harness?.stop());

  const scope = (email: string, userId: number) => ({
    resourceId: RESOURCE,
    userId,
    email,
    name: 'Ada Lovelace',
    resourceSettings: { payments_in_live_mode: false },
    resourceKey: `resource-${RESOURCE}`,
    resourceTitle: 'Resource',
  });
  const uniqueEmail = () => `member-${randomBytes(6).toString('hex')}@example.test`;
  const providerCustomers = async (email: string) => (await provider.customers.list({ email, limit: 100 })).data;

  it('a retry after a crash in the window finds the provider customer instead of creating a second', async () => {
    const email = uniqueEmail();
    crashes = 1;
    await expect(harness.client.getOrCreateCustomer(scope(email, 501))).rejects.toMatchObject({ status: 500 });
    // The crash left a provider customer and a claim without a result.
    expect(await providerCustomers(email)).toHaveLength(1);
    const customer = await harness.client.getOrCreateCustomer(scope(email, 501));
    expect(customer.customerId).toBe((await providerCustomers(email))[0]!.id);
    expect(await providerCustomers(email)).toHaveLength(1);
    expect(await harness.client.hasPaymentCustomer({ resourceId: RESOURCE, userId: 501 })).toEqual({ hasCustomer: true });
    expect(await harness.client.hasPaymentCustomer({ resourceId: RESOURCE + 1, userId: 501 })).toEqual({ hasCustomer: false });
  });

  it('parallel first requests, some crashing, still make one provider customer and one record', async () => {
    const email = uniqueEmail();
    crashes = 2;
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => harness.client.getOrCreateCustomer(scope(email, 502))));
    const fulfilled = results.filter((result) => result.status === 'fulfilled');
    expect(fulfilled.length).toBeGreaterThan(0);
    const again = await harness.client.getOrCreateCustomer(scope(email, 502));
    expect(new Set(fulfilled.map((result) => result.value.customerId))).toEqual(new Set([again.customerId]));
    expect(await providerCustomers(email)).toHaveLength(1);
    expect(await harness.db.collection('payment_customers').countDocuments({ user_id: 502 })).toBe(1);
  });

  it('answers 409 provider_write_in_progress to a caller that waits longer than its budget for the key’s holder', async () => {
    const ledger = new ProviderWriteLedger(harness.db, { staleAfterMs: 60_000, waitMs: 300 });
    const key = `ledger-test-${randomBytes(6).toString('hex')}`;
    const neverWrites = { find: async () => null, create: async (): Promise<string> => expect.fail('only the holder writes') };
    let release: (objectId: string) => void = () => undefined;
    let holding: Promise<string> = Promise.resolve('');
    // The holder claims the key and is inside its provider write when the second caller comes.
    const created = new Promise<void>((createCalled) => {
      holding = ledger.once(key, {
        find: async () => null,
        create: () =>
          new Promise<string>((resolve) => {
            release = resolve;
            createCalled();
          }),
      });
    });
    await created;
    await expect(ledger.once(key, neverWrites)).rejects.toMatchObject({ status: 409, code: 'provider_write_in_progress' });
    release('cus_held');
    expect(await holding).toBe('cus_held');
    // Once recorded, a later caller gets the object at once, without writing.
    expect(await ledger.once(key, neverWrites)).toBe('cus_held');
  });

  it('stores the key sealed, returns only its last four characters, and re-seals on rotation', async () => {
    const rows = await harness.db.collection('cardprovider_connections').find({ resource_id: RESOURCE }).toArray();
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(FAKE_PROVIDER_KEY);
    const connections = connectionsOf(harness.address);
    const summary = await connections.getConnection({ resourceId: RESOURCE, mode: 'test' });
    connections.close();
    expect(summary).toEqual({
      resourceId: RESOURCE,
      mode: 'test',
      hasSecretKey: true,
      secretKeyLast4: FAKE_PROVIDER_KEY.slice(-4),
      keyId: 'dev',
      updatedAt: expect.any(String),
      clientId: '',
      connectedAccountId: '',
    });
    expect(JSON.stringify(summary)).not.toContain(FAKE_PROVIDER_KEY);

    // Rotation: a second process over the same database with a new current key and the old one.
    const newKey = `k2:${randomBytes(32).toString('base64')}`;
    const oldKey = `dev:${Buffer.alloc(32, 'masthead-development-only-key!!!').toString('base64')}`;
    const rotated = await startServiceHarness({
      service: 'billing',
      definition: PaymentSourceServiceService,
      env: { ...baseEnv(), MONGO_DB_PREFIX: harness.prefix, BILLING_SECRETS_KEYS: `${newKey},${oldKey}` },
      start: (env) => startBillingService(loadBillingConfig(env)),
    });
    try {
      const row = await harness.db.collection('cardprovider_connections').findOne({ resource_id: RESOURCE });
      expect(row?.['secret_key']).toMatchObject({ key_id: 'k2' });
      // The re-sealed key still opens: the provider answers with it.
      const email = uniqueEmail();
      expect((await rotated.client.getOrCreateCustomer(scope(email, 503))).customerId).toMatch(/^cus_/);
    } finally {
      await rotated.stop();
    }
  });

  it('refuses keys that are not secret keys, and unknown modes', async () => {
    const connections = connectionsOf(harness.address);
    await expect(connections.setSecretKey({ resourceId: RESOURCE, mode: 'test', secretKey: 'pk_test_public' })).rejects.toMatchObject({
      code: 'invalid_secret_key',
    });
    await expect(connections.setSecretKey({ resourceId: RESOURCE, mode: 'staging', secretKey: FAKE_PROVIDER_KEY })).rejects.toMatchObject({
      code: 'invalid_mode',
    });
    connections.close();
  });
});
