import { describe, expect, it } from 'vitest';
import { billingKit, CARDS } from './billing-support.js';
import type { Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

/**
 * Checkout beyond the spec, as existing clients call it (docs/adr/0142): POST
 * /payment/calculate-price, /promo-validation and /payment through the gateway, billing,
 * catalog, FerretDB and localstripe. Money is counted where it is taken: the provider's charges.
 */
describe('checkout', () => {
  const s = useStack();
  const { provider, kit, shop, buyer, item, pay, paidCharges, promo, memberships } = billingKit(s);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  /** One priced item of an answer's `purchases[]`: the 9.99 USD monthly Pricing unless `fields` say otherwise. */
  const quoted = (pricingId: number, fields: Json = {}) => ({
    item_type: 'subscription',
    item_key: String(pricingId),
    item_id: pricingId,
    title: 'Digital: Monthly',
    price: 999,
    discount: 0,
    amount: 999,
    currency: 'USD',
    promo: null,
    ...fields,
  });

  describe('POST /payment/calculate-price', () => {
    const quote = (headers: Record<string, string>, body: unknown) =>
      s.api('/payment/calculate-price', { method: 'POST', headers, json: body });

    it('prices the items: total_price and purchases[]', async () => {
      const { tenant, plan, pricing } = await shop();
      const yearly = await kit.pricing(plan.id, 'Yearly', { price: 9900, currency: 'USD', period: '1 year' });
      const m = await buyer(tenant);
      const response = await quote(m.headers, { items: [item(pricing.id), { item_type: 'subscription', item_key: yearly.id }] });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        total_price: 10899,
        currency: 'USD',
        purchases: [quoted(pricing.id), quoted(yearly.id, { title: 'Digital: Yearly', price: 9900, amount: 9900 })],
      });
      // A quote takes nothing.
      expect(await provider.chargesOf(m.customerId)).toEqual([]);
    });

    it('answers each documented error', async () => {
      const { tenant, plan, pricing } = await shop();
      const m = await buyer(tenant);
      const gift = await kit.pricing(plan.id, 'Gift', { type: 'gift' });
      const euro = await kit.pricing(plan.id, 'Euro', { currency: 'EUR' });
      const retired = await kit.pricing(plan.id, 'Retired', { active: false });
      const other = await shop();
      const noBody = await s.api('/payment/calculate-price', { method: 'POST', headers: m.headers });
      expect([noBody.status, noBody.body]).toEqual([409, error('incorrect_data')]);
      const form = await s.api('/payment/calculate-price', { method: 'POST', headers: m.headers, form: { items: 'x' } });
      expect([form.status, form.body]).toEqual([409, error('incorrect_data')]);
      for (const body of [{}, { items: [] }, { items: 'x' }, { items: [1] }, { items: Array(21).fill(item(pricing.id)) }]) {
        const response = await quote(m.headers, body);
        expect([response.status, response.body]).toEqual([409, error('invalid_items')]);
      }
      const cases: Array<[Json, string]> = [
        [{ item_type: 'team_seat', item_key: '1' }, 'invalid_item_type'],
        [{ item_key: String(pricing.id) }, 'invalid_item_type'],
        [item(999999), 'invalid_item_key'],
        [{ item_type: 'subscription', item_key: 'abc' }, 'invalid_item_key'],
        [item(gift.id), 'invalid_item_key'],
        [item(retired.id), 'invalid_item_key'],
        [item(other.pricing.id), 'invalid_item_key'],
        [item(pricing.id, { item_resource: other.tenant.publicKey }), 'invalid_item_resource'],
        [item(pricing.id, { promo: 'NOPE' }), 'invalid_promo'],
      ];
      for (const [body, code] of cases) {
        const response = await quote(m.headers, { items: [body] });
        expect([response.status, response.body, code]).toEqual([409, error(code), code]);
      }
      const mixed = await quote(m.headers, { items: [item(pricing.id), item(euro.id)] });
      expect([mixed.status, mixed.body]).toEqual([409, error('mixed_currencies')]);
      // The header resource's own key is accepted as item_resource.
      expect((await quote(m.headers, { items: [item(pricing.id, { item_resource: tenant.publicKey })] })).status).toBe(200);
      const guest = await quote({ resource: tenant.publicKey }, { items: [item(pricing.id)] });
      expect([guest.status, guest.body['error']]).toEqual([401, 'auth_failed']);
    });
  });

  describe('POST /promo-validation', () => {
    const validate = (headers: Record<string, string>, items: Json[]) =>
      s.api('/promo-validation', { method: 'POST', headers, json: { items } });

    it('applies a percent or an amount off, case-insensitively', async () => {
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant);
      await promo(tenant, { code: 'SPRING20', discountType: 'percent', discountValue: 20 });
      await promo(tenant, { code: 'FIVE', discountType: 'amount', discountValue: 500, currency: 'USD' });
      const percent = await validate(m.headers, [item(pricing.id, { promo: 'spring20' })]);
      expect(percent.status).toBe(200);
      expect(percent.body).toEqual({
        result: true,
        total_price: 799,
        currency: 'USD',
        purchases: [quoted(pricing.id, { discount: 200, amount: 799, promo: 'SPRING20' })],
      });
      const amount = await validate(m.headers, [item(pricing.id, { promo: 'FIVE' })]);
      expect([amount.body['total_price'], (amount.body['purchases'] as Json[])[0]!['discount']]).toEqual([499, 500]);
    });

    it('refuses a missing, unknown, early, expired, used-up or foreign code: 409 invalid_promo', async () => {
      const { tenant, plan, pricing } = await shop();
      const m = await buyer(tenant);
      const other = await kit.pricing(plan.id, 'Other');
      const day = 86_400_000;
      await promo(tenant, { code: 'LATER', validFrom: new Date(Date.now() + day).toISOString() });
      await promo(tenant, { code: 'OVER', validUntil: new Date(Date.now() - day).toISOString() });
      await promo(tenant, { code: 'ONLYOTHER', pricingIds: [other.id] });
      await promo(tenant, { code: 'EUROS', discountType: 'amount', discountValue: 100, currency: 'EUR' });
      const off = await promo(tenant, { code: 'OFF' });
      const client = (await import('@masthead/core/grpc')).createServiceClient(
        (await import('@masthead/proto/billing/promos')).PromoCodeServiceService,
        s.stack.env['BILLING_ADDR']!,
        { defaultDeadlineMs: 5000 },
      );
      await client.setPromoCodeActive({ id: off.id, active: false });
      client.close();
      for (const code of [undefined, 'UNKNOWN', 'LATER', 'OVER', 'ONLYOTHER', 'EUROS', 'OFF']) {
        const response = await validate(m.headers, [item(pricing.id, code ? { promo: code } : {})]);
        expect([response.status, response.body, code]).toEqual([409, error('invalid_promo'), code]);
      }
    });
  });

  describe('POST /payment', () => {
    it('buys a Pricing with the saved card: one charge, a succeeded transaction, the membership', async () => {
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant);
      const events = collectEvents(s.nats, 'transaction_succeeded');
      const response = await pay(m.headers, [item(pricing.id, { payment_method_id: m.methodId })]);
      expect(response.status).toBe(200);
      const [membership] = await memberships(tenant, m.member.id);
      const transaction = response.body['transaction'] as Json;
      expect(response.body).toEqual({
        result: true,
        status: 'succeeded',
        total_price: 999,
        currency: 'USD',
        purchases: [{ id: expect.any(Number), ...quoted(pricing.id), user_subscription_id: membership!['_id'] }],
        transaction: {
          id: expect.any(Number),
          status: 'succeeded',
          amount: 999,
          amount_refunded: 0,
          currency: 'USD',
          pay_system: 'cardprovider',
          purchases: [
            { id: (response.body['purchases'] as Json[])[0]!['id'], item_type: 'subscription', item_id: pricing.id, amount: 999 },
          ],
          receipt: null,
          refunds: [],
          payment_source: { source_type: 'payment-method', id: m.methodId },
          error: null,
          created_at: anyIsoDate,
          card: { brand: 'visa', last4: '4242' },
        },
        client_secret: null,
      });
      expect(membership).toMatchObject({ pricing_id: pricing.id, autorenew: true, active: true });
      const charges = await paidCharges(m.customerId);
      expect(charges.map((charge) => charge['amount'])).toEqual([999]);
      expect(charges[0]!['currency']).toBe('usd');
      await eventWhere(events, 'transaction_id', transaction['id']);
      // Bought once: the member now holds it.
      const again = await pay(m.headers, [item(pricing.id)]);
      expect([again.status, again.body]).toEqual([409, error('already_subscribed')]);
      expect(await paidCharges(m.customerId)).toHaveLength(1);
    });

    it('uses the default source when the items name none, and the resource’s autorenew default', async () => {
      const { tenant, pricing } = await shop({ default_autorenewal_subscription: false });
      const m = await buyer(tenant);
      const response = await pay(m.headers, [item(pricing.id)]);
      expect(response.status).toBe(200);
      expect((response.body['transaction'] as Json)['payment_source']).toEqual({ source_type: 'payment-method', id: m.methodId });
      expect((await memberships(tenant, m.member.id))[0]).toMatchObject({ autorenew: false });
    });

    it('answers a retry with the same Idempotency-Key with the first answer, and charges once', async () => {
      const { tenant, plan, pricing } = await shop();
      const m = await buyer(tenant);
      const first = await pay(m.headers, [item(pricing.id)], 'order-1');
      expect(first.status).toBe(200);
      const retry = await pay(m.headers, [item(pricing.id)], 'order-1');
      expect(retry.status).toBe(200);
      expect(retry.body).toEqual(first.body);
      expect(await paidCharges(m.customerId)).toHaveLength(1);
      const other = await kit.pricing(plan.id, 'Yearly', { price: 9900, period: '1 year' });
      const reused = await pay(m.headers, [item(other.id)], 'order-1');
      expect([reused.status, reused.body]).toEqual([409, error('idempotency_key_reused')]);
      const badKey = await pay(m.headers, [item(other.id)], ' ');
      expect([badKey.status, badKey.body]).toEqual([409, error('invalid_idempotency_key')]);
      expect(await paidCharges(m.customerId)).toHaveLength(1);
    });

    it('charges once under parallel requests with one key, and once for one item under different keys', async () => {
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant);
      const same = await Promise.all(Array.from({ length: 5 }, () => pay(m.headers, [item(pricing.id)], 'burst')));
      expect(same.map((response) => [response.status, response.body['error']])).toEqual(Array(5).fill([200, undefined]));
      expect(new Set(same.map((response) => (response.body['transaction'] as Json)['id'])).size).toBe(1);
      expect(await paidCharges(m.customerId)).toHaveLength(1);

      const { tenant: second, pricing: other } = await shop();
      const n = await buyer(second);
      const keys = await Promise.all(Array.from({ length: 4 }, (_, index) => pay(n.headers, [item(other.id)], `k-${index}`)));
      const codes = keys.map((response) => (response.status === 200 ? 'ok' : (response.body['error'] as string)));
      expect(codes.filter((code) => code === 'ok')).toHaveLength(1);
      for (const code of codes) expect(['ok', 'already_subscribed', 'purchase_in_progress']).toContain(code);
      expect(await paidCharges(n.customerId)).toHaveLength(1);
      expect(await memberships(second, n.member.id)).toHaveLength(1);
    });

    it('records a declined payment as a failed transaction, grants nothing, and answers the same on retry', async () => {
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant, CARDS.declined);
      const events = collectEvents(s.nats, 'transaction_failed');
      const declined = await pay(m.headers, [item(pricing.id)], 'try-1');
      expect([declined.status, declined.body]).toEqual([409, error('payment_failed')]);
      expect(await memberships(tenant, m.member.id)).toEqual([]);
      const [row] = await s.db('billing').collection('transactions').find({ user_id: m.member.id }).toArray();
      expect(row).toMatchObject({ status: 'failed', error: 'card_declined', amount: 999 });
      await eventWhere(events, 'transaction_id', row!['_id']);
      const attempts = (await provider.chargesOf(m.customerId)).length;
      const retry = await pay(m.headers, [item(pricing.id)], 'try-1');
      expect([retry.status, retry.body['error']]).toEqual([409, 'payment_failed']);
      expect((await provider.chargesOf(m.customerId)).length).toBe(attempts);
      expect(await paidCharges(m.customerId)).toEqual([]);
      // The hold went with the failure: another card can buy it now.
      const visa = await provider.attachCard(m.customerId, CARDS.visa);
      const saved = await s.api('/user/payment-provider/cardprovider/save-intents', {
        method: 'POST',
        headers: m.headers,
        json: { setup_intent: { payment_method: visa['id'] } },
      });
      const paid = await pay(m.headers, [item(pricing.id, { payment_method_id: (saved.body['payment_method'] as Json)['id'] })], 'try-2');
      expect(paid.status).toBe(200);
    });

    it('answers the client secret when the card asks for 3-D Secure, and completes once the member passed it', async () => {
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant, CARDS.threeDSecure);
      const first = await pay(m.headers, [item(pricing.id)], 'sca-1');
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ status: 'requires_action', client_secret: expect.stringMatching(/^pi_\w+_secret_\w+$/) });
      expect((first.body['transaction'] as Json)['status']).toBe('requires_action');
      expect(await memberships(tenant, m.member.id)).toEqual([]);
      const [intent] = await provider.paymentIntentsOf(m.customerId);
      await provider.authenticate(intent!['id'] as string, first.body['client_secret'] as string);
      const done = await pay(m.headers, [item(pricing.id)], 'sca-1');
      expect(done.status).toBe(200);
      expect(done.body).toMatchObject({ status: 'succeeded', client_secret: null });
      expect(await memberships(tenant, m.member.id)).toHaveLength(1);
      expect(await paidCharges(m.customerId)).toHaveLength(1);
      expect(await provider.paymentIntentsOf(m.customerId)).toHaveLength(1);
    });

    it('takes a promo code’s limited uses atomically under parallel purchases', async () => {
      const { tenant, pricing } = await shop();
      await promo(tenant, { code: 'FIRST2', discountType: 'percent', discountValue: 50, maxUses: 2 });
      const buyers = await Promise.all(Array.from({ length: 4 }, () => buyer(tenant)));
      const answers = await Promise.all(buyers.map((b) => pay(b.headers, [item(pricing.id, { promo: 'first2' })])));
      expect(answers.filter((answer) => answer.status === 200).map((answer) => answer.body['total_price'])).toEqual([499, 499]);
      expect(answers.filter((answer) => answer.status === 409).map((answer) => answer.body['error'])).toEqual([
        'invalid_promo',
        'invalid_promo',
      ]);
    });

    it('gives back a use claimed by a checkout that died before recording its transaction', async () => {
      const { tenant, pricing } = await shop();
      const uses = s.db('billing').collection('promo_redemptions');
      /** A use as a checkout that died after its claim left it, claimed `ageMs` ago. */
      const orphan = async (code: string, ageMs: number) => {
        const created = await promo(tenant, { code, discountType: 'percent', discountValue: 50, maxUses: 1 });
        await uses.insertOne({
          _id: `${created.id}:0` as never,
          promo_id: created.id,
          claim_key: `checkout:${tenant.resourceId}:0:key:dead-${code}`,
          created_at: new Date(Date.now() - ageMs),
        });
        return created.id;
      };
      // Past the lease (a minute): the use is given back and the purchase gets the discount.
      const stale = await orphan('STALE1', 120_000);
      const first = await pay((await buyer(tenant)).headers, [item(pricing.id, { promo: 'stale1' })]);
      expect([first.status, first.body['total_price']]).toEqual([200, 499]);
      expect(await uses.find({ promo_id: stale }).toArray()).toEqual([
        expect.objectContaining({ claim_key: expect.not.stringContaining('dead') }),
      ]);
      // Within the lease the checkout may still be running: the use stays its own.
      const young = await orphan('YOUNG1', 0);
      const second = await pay((await buyer(tenant)).headers, [item(pricing.id, { promo: 'young1' })]);
      expect([second.status, second.body]).toEqual([409, error('invalid_promo')]);
      expect(await uses.countDocuments({ promo_id: young, claim_key: { $regex: /dead/ } })).toBe(1);
      // A use whose purchase was recorded is kept, and marked so that it is not looked at again.
      const used = await promo(tenant, { code: 'ONCE1', discountType: 'percent', discountValue: 50, maxUses: 1 });
      expect((await pay((await buyer(tenant)).headers, [item(pricing.id, { promo: 'once1' })])).status).toBe(200);
      const refused = await pay((await buyer(tenant)).headers, [item(pricing.id, { promo: 'once1' })]);
      expect([refused.status, refused.body]).toEqual([409, error('invalid_promo')]);
      expect(await uses.find({ promo_id: used.id }).toArray()).toEqual([expect.objectContaining({ confirmed: true })]);
    });

    it('answers each documented payment-source and provider error', async () => {
      const { tenant, pricing } = await shop();
      const m = await buyer(tenant);
      const bare = await (await import('./member-session.js')).signedInMember(s, tenant);
      const none = await pay(bare.headers, [item(pricing.id)]);
      expect([none.status, none.body]).toEqual([409, error('invalid_payment_source')]);
      const foreign = await pay(bare.headers, [item(pricing.id, { payment_method_id: m.methodId })]);
      expect([foreign.status, foreign.body]).toEqual([409, error('invalid_payment_source')]);
      const two = await pay(m.headers, [item(pricing.id, { payment_method_id: m.methodId }), item(pricing.id, { user_card_id: 99999 })]);
      expect([two.status, two.body]).toEqual([409, error('invalid_payment_source')]);

      // Live mode while only the test key is stored: configuration failure, nothing charged.
      const live = await shop({ payments_in_live_mode: true });
      const liveBuyer = await (await import('./member-session.js')).signedInMember(s, live.tenant);
      const noKey = await pay(liveBuyer.headers, [item(live.pricing.id)]);
      expect([noKey.status, noKey.body]).toEqual([409, error('invalid_payment_source')]);

      // The resource's key is gone (an operator's mistake): a configuration failure, no charge,
      // a failed transaction, and the item free to buy once the key is back.
      const connections = s.db('billing').collection('cardprovider_connections');
      const stored = await connections.find({ resource_id: tenant.resourceId }).toArray();
      await connections.deleteMany({ resource_id: tenant.resourceId });
      const unconfigured = await pay(m.headers, [item(pricing.id)], 'no-key');
      expect([unconfigured.status, unconfigured.body]).toEqual([409, error('cardprovider_payment_error')]);
      expect(await s.db('billing').collection('transactions').findOne({ user_id: m.member.id })).toMatchObject({
        status: 'failed',
        error: 'not_configured',
      });
      await connections.insertMany(stored);
      expect((await pay(m.headers, [item(pricing.id)], 'with-key')).status).toBe(200);
      expect(await paidCharges(m.customerId)).toHaveLength(1);
    });

    it('grants a fully discounted Pricing without a provider call', async () => {
      const { tenant, pricing } = await shop();
      await promo(tenant, { code: 'FREE', discountType: 'percent', discountValue: 100 });
      const m = await (await import('./member-session.js')).signedInMember(s, tenant);
      const response = await pay(m.headers, [item(pricing.id, { promo: 'FREE' })]);
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: 'succeeded', total_price: 0 });
      expect((response.body['transaction'] as Json)['payment_source']).toBeNull();
      expect(await memberships(tenant, m.member.id)).toHaveLength(1);
    });
  });
});
