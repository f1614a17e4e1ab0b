import { createServer, type Server, type Socket } from 'node:net';
import { startBillingProcess, type BillingProcess } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingKit } from './billing-support.js';
import { anyRequestId, useStack } from './support.js';

/**
 * Exactly one charge when billing dies between the provider's answer and its own record
 * (docs/adr/0121, 0142), with billing as a real process killed by SIGKILL at that point; and a
 * provider that does not answer ends in the documented 409 within the provider deadline, never a
 * hang or a 500.
 */
describe('checkout across a killed billing process', () => {
  const s = useStack();
  const { shop, buyer, item, pay, paidCharges, memberships } = billingKit(s);
  let billing: BillingProcess | undefined;

  beforeAll(async () => {
    await s.stack.stopService('billing');
  });
  afterAll(async () => {
    await billing?.kill();
  });

  it('a retry with the same Idempotency-Key after the crash finds the charge instead of charging again', async () => {
    billing = await startBillingProcess(s.stack);
    const { tenant, pricing } = await shop();
    const m = await buyer(tenant);
    await billing.kill();

    billing = await startBillingProcess(s.stack, { crashAfterWriteContaining: ':payment:' });
    const crashed = await pay(m.headers, [item(pricing.id)], 'order-crash');
    expect(await billing.exited).toBe('SIGKILL');
    expect(crashed.status).toBeGreaterThanOrEqual(500);
    expect(crashed.status).not.toBe(500);
    // The provider took the money; billing recorded neither the payment nor the membership.
    expect(await paidCharges(m.customerId)).toHaveLength(1);
    expect(await memberships(tenant, m.member.id)).toEqual([]);
    expect(await s.db('billing').collection('transactions').findOne({ user_id: m.member.id })).toMatchObject({
      status: 'pending',
      payment_id: null,
    });

    billing = await startBillingProcess(s.stack);
    // Without the key a request is a purchase of its own, but the item is held by the pending one.
    const unkeyed = await pay(m.headers, [item(pricing.id)]);
    expect([unkeyed.status, unkeyed.body]).toEqual([
      409,
      { error: 'purchase_in_progress', error_description: expect.any(String), req_guid: anyRequestId },
    ]);
    const retry = await pay(m.headers, [item(pricing.id)], 'order-crash');
    expect(retry.status).toBe(200);
    expect(retry.body).toMatchObject({ status: 'succeeded', total_price: 999 });
    expect(await paidCharges(m.customerId)).toHaveLength(1);
    expect(await memberships(tenant, m.member.id)).toHaveLength(1);
  });

  it('answers 503 webhook_not_configured when billing has no endpoint secret (the provider retries later)', async () => {
    const response = await s.api('/webhooks/cardprovider', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=0' },
      raw: JSON.stringify({ id: 'evt_1', type: 'payment_intent.succeeded', data: { object: {} } }),
    });
    expect([response.status, response.body]).toEqual([
      503,
      { error: 'webhook_not_configured', error_description: expect.any(String), req_guid: anyRequestId },
    ]);
  });

  describe('a provider that accepts connections and never answers', () => {
    let blackHole: Server;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      blackHole = createServer((socket) => sockets.add(socket));
      await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve));
    });
    afterAll(async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackHole.close(resolve));
    });

    it('answers 409 cardprovider_payment_error within the deadline and keeps the payment pending for a retry', async () => {
      await billing?.kill();
      billing = await startBillingProcess(s.stack);
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant);
      await billing.kill();
      const port = (blackHole.address() as { port: number }).port;
      billing = await startBillingProcess(s.stack, {
        env: { CARDPROVIDER_API_BASE: `http://127.0.0.1:${port}`, CARDPROVIDER_TIMEOUT_MS: '800' },
      });
      const started = Date.now();
      const response = await pay(m.headers, [item(pricing.id)], 'slow-1');
      expect([response.status, response.body]).toEqual([
        409,
        { error: 'cardprovider_payment_error', error_description: expect.any(String), req_guid: anyRequestId },
      ]);
      expect(Date.now() - started).toBeLessThan(5000);
      expect(await s.db('billing').collection('transactions').findOne({ user_id: m.member.id })).toMatchObject({ status: 'pending' });

      // The provider is back: the same key completes the payment, once.
      await billing.kill();
      billing = await startBillingProcess(s.stack);
      const retry = await pay(m.headers, [item(pricing.id)], 'slow-1');
      expect([retry.status, retry.body['status']]).toEqual([200, 'succeeded']);
      expect(await paidCharges(m.customerId)).toHaveLength(1);
    });
  });
});
