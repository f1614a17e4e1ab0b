import { startDisputingCardProvider, type DisputingCardProvider } from '@masthead/testkit';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { billingKit, CARDS, signedWebhooks } from './billing-support.js';
import type { Json } from './catalog-support.js';
import { anyRequestId, collectEvents, eventWhere, useStack } from './support.js';

const SECRET = 'whsec_masthead_test_endpoint';
const OTHER_SECRET = 'whsec_masthead_other_endpoint';

/**
 * POST /webhooks/cardprovider (docs/adr/0147, 0231): events signed with the SDK's test-header
 * helper, verified with the endpoint secret, deduplicated by event ID, and applied from the
 * object's current state at the provider (localstripe, behind a front that adds disputes), so that
 * duplicates, out-of-order deliveries and events about objects that are not the transaction's
 * change nothing they should not.
 */
describe('card-provider webhooks', () => {
  // Billing reaches localstripe through the dispute-aware front, started before the stack.
  const env: Record<string, string> = { CARDPROVIDER_WEBHOOK_SECRETS: `${OTHER_SECRET}, ${SECRET}` };
  let disputes: DisputingCardProvider;
  beforeAll(async () => {
    disputes = await startDisputingCardProvider(inject('localStripeUrl'));
    env['CARDPROVIDER_API_BASE'] = disputes.url;
  });
  afterAll(() => disputes?.stop());
  const s = useStack({ env });
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
    const now = Math.floor(Date.now() / 1000);
    const old = await deliver(body, { timestamp: now - 3600 });
    expect([old.status, old.body]).toEqual([400, error('invalid_signature')]);
    // Dated ahead of now beyond the tolerance (300 s) is as stale as dated behind it.
    const ahead = await deliver(body, { timestamp: now + 600 });
    expect([ahead.status, ahead.body]).toEqual([400, error('invalid_signature')]);
    const twoStamps = await deliver(body, {
      signature: `t=${now + 600},${Stripe.webhooks.generateTestHeaderString({ payload: JSON.stringify(body), secret: SECRET, timestamp: now })}`,
    });
    expect([twoStamps.status, twoStamps.body]).toEqual([400, error('invalid_signature')]);
    // Within it either way (the clocks differ a little): verified.
    const skewed = event('customer.created', { id: 'cus_skewed', object: 'customer' });
    expect((await deliver(skewed, { timestamp: now + 120 })).body).toEqual({ received: true, duplicate: false, ignored: true });
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

  it('answers 400 invalid_webhook_payload for a signed body that is no provider event, and records nothing', async () => {
    const events = s.db('billing').collection('webhook_events');
    const before = await events.countDocuments();
    const payloads = [
      '[]',
      'null',
      '42',
      '"charge.dispute.closed"',
      'not json',
      '{}',
      JSON.stringify({ id: 'evt_no_type', data: { object: {} } }),
      JSON.stringify({ id: '', type: 'charge.dispute.closed', data: { object: {} } }),
      JSON.stringify({ id: 'evt_no_data', type: 'charge.dispute.closed' }),
      JSON.stringify({ id: 'evt_list', type: 'charge.dispute.closed', data: { object: [] } }),
      JSON.stringify({ id: 7, type: 'charge.dispute.closed', data: { object: {} } }),
    ];
    for (const payload of payloads) {
      const response = await deliver(payload);
      expect([payload, response.status, response.body]).toEqual([payload, 400, error('invalid_webhook_payload')]);
    }
    // Unsigned, the same bodies are a signature failure first.
    const unsigned = await s.api('/webhooks/cardprovider', { method: 'POST', headers: { 'content-type': 'application/json' }, raw: '[]' });
    expect([unsigned.status, unsigned.body]).toEqual([400, error('invalid_signature')]);
    expect(await events.countDocuments()).toBe(before);
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

  /** A member who bought the shop's Pricing: the tenant, the member and the paid transaction. */
  async function paidMember() {
    const { tenant, pricing } = await shop();
    const m = await buyer(tenant);
    expect((await pay(m.headers, [item(pricing.id)])).status).toBe(200);
    const paid = (await transactionOf(m.member.id))!;
    return { tenant, pricing, m, paid, charge: paid['charge_id'] as string, intent: paid['payment_id'] as string };
  }

  it('records disputes as the provider holds them; a lost one ends the membership and a late event does not reopen it', async () => {
    const { tenant, m, charge, intent } = await paidMember();
    const opened = disputes.dispute({ charge, paymentIntent: intent, amount: 999, status: 'needs_response' });
    expect((await deliver(event('charge.dispute.created', { ...opened }))).body).toEqual({
      received: true,
      duplicate: false,
      ignored: false,
    });
    expect(await transactionOf(m.member.id)).toMatchObject({ dispute: { id: opened.id, status: 'needs_response' } });
    expect((await memberships(tenant, m.member.id))[0]).toMatchObject({ active: true });
    const lost = disputes.dispute({ id: opened.id, charge, paymentIntent: intent, amount: 999, status: 'lost' });
    expect((await deliver(event('charge.dispute.closed', { ...lost }))).status).toBe(200);
    // An older event delivered late: its snapshot says "under review", the provider says lost.
    expect((await deliver(event('charge.dispute.updated', { ...opened, status: 'under_review' }))).status).toBe(200);
    expect(await transactionOf(m.member.id)).toMatchObject({ dispute: { id: opened.id, status: 'lost' } });
    expect(await memberships(tenant, m.member.id)).toEqual([]);
  });

  it('changes nothing for a dispute the provider does not have, or one on another charge (docs/adr/0231)', async () => {
    const { tenant, m, charge, intent } = await paidMember();
    const disputed = collectEvents(s.nats, 'transaction_disputed');
    // A signed "lost" event about a dispute the provider has no record of.
    const forged = { id: 'dp_unknown_to_the_provider', object: 'dispute', charge, payment_intent: intent, amount: 999, status: 'lost' };
    expect((await deliver(event('charge.dispute.closed', forged))).body).toEqual({ received: true, duplicate: false, ignored: true });
    // A real lost dispute of another member's charge, named in an event about this one.
    const other = await paidMember();
    const theirs = disputes.dispute({ charge: other.charge, paymentIntent: other.intent, amount: 999, status: 'lost' });
    const mislabelled = event('charge.dispute.closed', { ...theirs, charge, payment_intent: intent });
    expect((await deliver(mislabelled)).body).toEqual({ received: true, duplicate: false, ignored: true });
    const after = await transactionOf(m.member.id);
    expect(after).toMatchObject({ status: 'succeeded' });
    expect(after!['dispute'] ?? null).toBeNull();
    const [membership] = await memberships(tenant, m.member.id);
    expect(membership).toMatchObject({ active: true });
    expect(await history(membership!['_id'])).toEqual(['created']);
    expect(disputed.filter((published) => (published['payload'] as Json)['transaction_id'] === after!['_id'])).toEqual([]);
  });

  it('completes a checkout only with its own payment: another payment under its key changes nothing', async () => {
    const { tenant, pricing, m, intent } = await waitingPayment();
    const other = await buyer(tenant);
    expect((await pay(other.headers, [item(pricing.id)])).status).toBe(200);
    const othersPayment = (await transactionOf(other.member.id))!['payment_id'] as string;
    // Signed, naming the waiting checkout by its key, but the payment is someone else's that succeeded.
    const borrowed = event('payment_intent.succeeded', {
      id: othersPayment,
      object: 'payment_intent',
      status: 'succeeded',
      metadata: intent['metadata'],
    });
    expect((await deliver(borrowed)).body).toEqual({ received: true, duplicate: false, ignored: true });
    expect(await transactionOf(m.member.id)).toMatchObject({ status: 'requires_action' });
    expect(await memberships(tenant, m.member.id)).toEqual([]);
  });

  it('mirrors only refunds of the transaction’s own charge', async () => {
    const { tenant, m, intent } = await paidMember();
    // A payment of the same card made outside billing, refunded in full on the provider.
    const outside = await provider.payDirectly(m.customerId, m.providerMethodId, 999);
    await provider.refund(outside['id'] as string);
    const latest = outside['latest_charge'];
    const charge = await provider.charge(typeof latest === 'string' ? latest : ((latest as Json)['id'] as string));
    expect(charge).toMatchObject({ refunded: true, amount_refunded: 999 });
    // Signed, naming that charge with this transaction's intent.
    expect((await deliver(event('charge.refunded', { ...charge, payment_intent: intent }))).body).toEqual({
      received: true,
      duplicate: false,
      ignored: true,
    });
    expect(await transactionOf(m.member.id)).toMatchObject({ status: 'succeeded', amount_refunded: 0 });
    expect((await memberships(tenant, m.member.id))[0]).toMatchObject({ active: true });
  });
});
