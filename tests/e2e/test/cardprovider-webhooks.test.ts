import Stripe from 'stripe';
import { describe, expect, it } from 'vitest';
import { billingKit, CARDS, signedWebhooks } from './billing-support.js';
import type { Json } from './catalog-support.js';
import { anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

const SECRET = 'whsec_masthead_test_endpoint';
const OTHER_SECRET = 'whsec_masthead_other_endpoint';

/**
 * POST /webhooks/cardprovider (docs/adr/0147): events signed with the SDK's test-header helper,
 * verified with the endpoint secret, deduplicated by event ID, and applied from the object's
 * current state at the provider (localstripe), so that duplicates and out-of-order deliveries
 * change nothing they should not.
 */
describe('card-provider webhooks', () => {
  const s = useStack({ env: { CARDPROVIDER_WEBHOOK_SECRETS: `${OTHER_SECRET}, ${SECRET}` } });
  const { provider, shop, buyer, item, pay, memberships } = billingKit(s);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });

  const { event, deliver } = signedWebhooks(s, SECRET);
  const transactionOf = (userId: number) => s.db('billing').collection('transactions').findOne({ user_id: userId });
  const history = async (membershipId: unknown) =>
    (await s.db('catalog').collection('membership_history').find({ membership_id: membershipId }).sort({ _id: 1 }).toArray()).map(
      (row) => row['action'],
    );

  /** A member whose 3-D Secure payment waits for them: the intent and its client secret. */
  async function waitingPayment() {
    const { tenant, pricing } = await shop();
    const m = await buyer(tenant, CARDS.threeDSecure);
    const answer = await pay(m.headers, [item(pricing.id)], 'sca');
    expect(answer.body['status']).toBe('requires_action');
    const [intent] = await provider.paymentIntentsOf(m.customerId);
    return { tenant, pricing, m, intent: intent!, secret: answer.body['client_secret'] as string };
  }

  it('refuses what does not verify: 400 invalid_signature', async () => {
    const body = event('payment_intent.succeeded', { id: 'pi_unknown', object: 'payment_intent' });
    const unsigned = await s.api('/webhooks/cardprovider', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      raw: JSON.stringify(body),
    });
    expect([unsigned.status, unsigned.body]).toEqual([400, error('invalid_signature')]);
    expect((await deliver(body, { secret: 'whsec_someone_else' })).body).toEqual(error('invalid_signature'));
    const old = await deliver(body, { timestamp: Math.floor(Date.now() / 1000) - 3600 });
    expect([old.status, old.body]).toEqual([400, error('invalid_signature')]);
    const payload = JSON.stringify(body);
    const tampered = await s.api('/webhooks/cardprovider', {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload, secret: SECRET }),
      },
      raw: payload.replace('pi_unknown', 'pi_other'),
    });
    expect([tampered.status, tampered.body]).toEqual([400, error('invalid_signature')]);
    // Either configured secret verifies (a rotation); an event about nothing of ours is ignored.
    expect((await deliver(body, { secret: OTHER_SECRET })).body).toEqual({ received: true, duplicate: false, ignored: true });
    expect((await deliver(event('customer.created', { id: 'cus_x', object: 'customer' }))).body).toEqual({
      received: true,
      duplicate: false,
      ignored: true,
    });
  });

  it('completes a 3-D Secure checkout when the payment succeeded, once, whatever arrives again or late', async () => {
    const { tenant, m, intent, secret } = await waitingPayment();
    await provider.authenticate(intent['id'] as string, secret);
    // The event's snapshot still says `requires_action`: billing asks the provider.
    const succeeded = event('payment_intent.succeeded', { ...intent });
    expect((await deliver(succeeded)).body).toEqual({ received: true, duplicate: false, ignored: false });
    expect(await transactionOf(m.member.id)).toMatchObject({ status: 'succeeded', payment_id: intent['id'] });
    const [membership] = await memberships(tenant, m.member.id);
    expect(membership).toMatchObject({ active: true });
    // The same event again: acknowledged, nothing repeated.
    expect((await deliver(succeeded)).body).toEqual({ received: true, duplicate: true, ignored: false });
    // An older event of the same intent, delivered late: the current state stands.
    expect((await deliver(event('payment_intent.payment_failed', { ...intent, status: 'requires_payment_method' }))).status).toBe(200);
    expect(await transactionOf(m.member.id)).toMatchObject({ status: 'succeeded' });
    expect(await memberships(tenant, m.member.id)).toHaveLength(1);
    expect(await history(membership!['_id'])).toEqual(['created']);
    // The client's own retry answers the completed checkout.
    const retry = await pay(m.headers, [item(membership!['pricing_id'] as number)], 'sca');
    expect([retry.status, retry.body['status']]).toEqual([200, 'succeeded']);
  });

  it('fails the checkout when the member failed 3-D Secure, and a late success snapshot does not revive it', async () => {
    const { tenant, m, intent, secret } = await waitingPayment();
    await provider.authenticate(intent['id'] as string, secret, false);
    expect((await deliver(event('payment_intent.payment_failed', { ...intent }))).status).toBe(200);
    expect(await transactionOf(m.member.id)).toMatchObject({ status: 'failed' });
    expect(await memberships(tenant, m.member.id)).toEqual([]);
    expect((await deliver(event('payment_intent.succeeded', { ...intent, status: 'succeeded' }))).status).toBe(200);
    expect(await transactionOf(m.member.id)).toMatchObject({ status: 'failed' });
    expect(await memberships(tenant, m.member.id)).toEqual([]);
  });

  it('mirrors refunds from the charge, in any order; a full refund ends the membership', async () => {
    const refunded = collectEvents(s.nats, 'transaction_refunded');
    const { tenant, pricing } = await shop();
    const m = await buyer(tenant);
    expect((await pay(m.headers, [item(pricing.id)])).status).toBe(200);
    const paid = await transactionOf(m.member.id);
    const charge = await provider.charge(paid!['charge_id'] as string);
    await provider.refund(paid!['payment_id'] as string, 400);
    const partial = event('charge.refunded', { ...charge, amount_refunded: 400, refunded: false });
    // The rest, named: the fake refunds the whole amount again when none is given.
    await provider.refund(paid!['payment_id'] as string, 599);
    const full = event('charge.refunded', { ...charge, amount_refunded: 999, refunded: true });
    // The newer event first, the older one after: both read the charge as it is now.
    expect((await deliver(full)).status).toBe(200);
    expect((await deliver(partial)).status).toBe(200);
    const after = await transactionOf(m.member.id);
    expect(after).toMatchObject({ status: 'refunded', amount_refunded: 999 });
    // Refunds of one second keep the provider's order among themselves.
    expect((after!['refunds'] as Json[]).map((refund) => refund['amount']).sort()).toEqual([400, 599]);
    const [membership] = await s
      .db('catalog')
      .collection('memberships')
      .find({ resource_id: tenant.resourceId, user_id: m.member.id })
      .toArray();
    expect(membership).toMatchObject({ active: false });
    expect(await history(membership!['_id'])).toEqual(['created', 'refunded']);
    expect((await eventWhere(refunded, 'transaction_id', paid!['_id']))['payload']).toMatchObject({
      status: 'refunded',
      amount_refunded: 999,
    });
    // The member's summary shows them.
    const summary = await s.api(`/user/transactions/${paid!['_id'] as unknown as number}`, { headers: m.headers });
    expect(summary.body).toMatchObject({ status: 'refunded', amount_refunded: 999 });
    expect((summary.body['refunds'] as Json[]).map((refund) => refund['amount']).sort()).toEqual([400, 599]);
  });

  it('records disputes; a lost one ends the membership and an older event does not reopen it', async () => {
    const { tenant, pricing } = await shop();
    const m = await buyer(tenant);
    expect((await pay(m.headers, [item(pricing.id)])).status).toBe(200);
    const paid = await transactionOf(m.member.id);
    const dispute = (status: string) => ({ id: 'dp_1', object: 'dispute', charge: paid!['charge_id'], amount: 999, status });
    expect((await deliver(event('charge.dispute.created', dispute('needs_response')))).status).toBe(200);
    expect(await transactionOf(m.member.id)).toMatchObject({ dispute: { id: 'dp_1', status: 'needs_response' } });
    expect((await memberships(tenant, m.member.id))[0]).toMatchObject({ active: true });
    expect((await deliver(event('charge.dispute.closed', dispute('lost')))).status).toBe(200);
    expect((await deliver(event('charge.dispute.updated', dispute('under_review')))).status).toBe(200);
    expect(await transactionOf(m.member.id)).toMatchObject({ dispute: { status: 'lost' } });
    expect(await memberships(tenant, m.member.id)).toEqual([]);
  });
});
