import { randomBytes } from 'node:crypto';
import type { Ticket } from '@masthead/proto/community/ti_events';
import type { Tenant } from '@masthead/testkit';
import { describe, expect, it } from 'vitest';
import { billingKit, CARDS, signedWebhooks } from './billing-support.js';
import type { Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, collectEvents, eventually, eventWhere, useStack } from './support.js';
import { ticketingKit } from './ti-events-support.js';

const SECRET = 'whsec_masthead_refund_endpoint';

/**
 * Paid tickets that can no longer be issued are refunded (docs/adr/0157, 0201): a member's 3-D
 * Secure finishes after the ticket reservation's hold lapsed and others bought the units. Through
 * the gateway, billing, community and localstripe; the money given back is read from the
 * provider, by its charge.
 */
// Each case signs up two members and waits for a hold to lapse: more than the default 30 s under load.
describe('checkout: refunds of paid tickets that cannot be issued', { timeout: 90_000 }, () => {
  // Holds lapse after one second: "3-D Secure finished late" takes seconds, not 15 minutes.
  const s = useStack({ env: { TICKET_HOLD_SECONDS: '1', CARDPROVIDER_WEBHOOK_SECRETS: SECRET } });
  const { provider, shop, buyer, item, pay, paidCharges, memberships } = billingKit(s);
  const ticketing = ticketingKit(s);
  const { event, deliver } = signedWebhooks(s, SECRET);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const ticketItem = (ticketId: number, extra: Json = {}) => ({ item_type: 'ti_ticket', item_key: String(ticketId), ...extra });
  const received = { received: true, duplicate: false, ignored: false };

  /** A test-mode resource selling a 9.99 USD Pricing and a 25.00 USD ticket of `quantity` units. */
  async function boxOffice(quantity: number) {
    const { tenant, pricing } = await shop({ ti_events_system: true });
    const launch = await ticketing.event(tenant, 'Launch');
    const ticket = await ticketing.ticket(launch.id, 'General', { quantity });
    return { tenant, pricing, ticket };
  }

  /**
   * A member pays `items` with a 3-D Secure card and is slow: the hold lapses, another member buys
   * `taken` units of the ticket (sold out while the hold lasts: polled), then the member passes
   * 3-D Secure. Nothing has told billing yet.
   */
  async function lateBuyer(tenant: Tenant, ticket: Ticket, items: Json[], taken: number) {
    const m = await buyer(tenant, CARDS.threeDSecure);
    const key = `late-${randomBytes(4).toString('hex')}`;
    const waiting = await pay(m.headers, items, key);
    expect([waiting.status, waiting.body['status']]).toEqual([200, 'requires_action']);
    const other = await buyer(tenant);
    await eventually(
      async () => ((await pay(other.headers, [ticketItem(ticket.id, { quantity: taken })])).status === 200 ? true : undefined),
      45_000,
    );
    const [intent] = await provider.paymentIntentsOf(m.customerId);
    await provider.authenticate(intent!['id'] as string, waiting.body['client_secret'] as string);
    const transactionId = (waiting.body['transaction'] as Json)['id'] as number;
    return { m, key, items, transactionId, intent: await provider.paymentIntent(intent!['id'] as string) };
  }
  type Late = Awaited<ReturnType<typeof lateBuyer>>;

  /** The member's one charge as the provider holds it, with its refunds and their keys. */
  async function chargeOf(late: Late) {
    const charges = await paidCharges(late.m.customerId);
    expect(charges).toHaveLength(1);
    const charge = charges[0]!;
    const refunds = ((charge['refunds'] as Json)['data'] as Json[]).map((refund) => ({
      id: refund['id'],
      amount: refund['amount'],
      key: (refund['metadata'] as Json)['masthead_key'],
    }));
    return { amount: charge['amount'], amountRefunded: charge['amount_refunded'], refunded: charge['refunded'], refunds };
  }
  const refundKey = (tenant: Tenant, late: Late, line: number) =>
    `masthead:${tenant.resourceId}:${late.m.member.id}:refund:${late.transactionId}:${line}:v1`;
  /** The member's charge of `paid` after one refund of `refunded`, made under line `line`'s key. */
  const refundedOnce = (tenant: Tenant, late: Late, paid: number, refunded: number, line: number) => ({
    amount: paid,
    amountRefunded: refunded,
    refunded: paid === refunded,
    refunds: [{ id: expect.stringMatching(/^re_/), amount: refunded, key: refundKey(tenant, late, line) }],
  });
  const shown = (late: Late) => s.api(`/user/transactions/${late.transactionId}`, { headers: late.m.headers });
  const summary = (late: Late, fields: Json) => ({
    id: late.transactionId,
    currency: 'USD',
    pay_system: 'cardprovider',
    receipt: null,
    payment_source: { source_type: 'payment-method', id: late.m.methodId },
    error: null,
    created_at: anyIsoDate,
    card: { brand: 'visa', last4: '3184' },
    ...fields,
  });
  const passesOf = (userId: number) => s.db('community').collection('ti_event_ticket_passes').find({ owner_id: userId }).toArray();

  it('refunds the whole payment when the member completes 3-D Secure after the units went to others, once', async () => {
    const refunded = collectEvents(s.nats, 'transaction_refunded');
    const { tenant, ticket } = await boxOffice(2);
    const late = await lateBuyer(tenant, ticket, [ticketItem(ticket.id, { quantity: 2 })], 1);

    const completed = await pay(late.m.headers, late.items, late.key);
    expect([completed.status, completed.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    const charge = await chargeOf(late);
    expect(charge).toEqual(refundedOnce(tenant, late, 5000, 5000, 0));
    const refund = charge.refunds[0]!;
    const expected = summary(late, {
      status: 'refunded',
      amount: 5000,
      amount_refunded: 5000,
      purchases: [{ id: expect.any(Number), item_type: 'ti_ticket', item_id: ticket.id, amount: 5000 }],
      refunds: [{ id: refund.id, amount: 5000, reason: null, created_at: anyIsoDate }],
    });
    const first = await shown(late);
    expect([first.status, first.body]).toEqual([200, expected]);
    expect((await eventWhere(refunded, 'transaction_id', late.transactionId))['payload']).toEqual({
      transaction_id: late.transactionId,
      user_id: late.m.member.id,
      status: 'refunded',
      amount_refunded: 5000,
      dispute_status: null,
    });

    // A second completion, the provider's late webhooks and its refund event: the same answer, no second refund.
    const again = await pay(late.m.headers, late.items, late.key);
    expect([again.status, again.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    expect((await deliver(event('payment_intent.succeeded', late.intent))).body).toEqual(received);
    const latest = late.intent['latest_charge'];
    const chargeId = typeof latest === 'string' ? latest : ((latest as Json)['id'] as string);
    expect((await deliver(event('charge.refunded', { id: chargeId, object: 'charge', payment_intent: late.intent['id'] }))).body).toEqual(
      received,
    );
    expect(await chargeOf(late)).toEqual(charge);
    expect((await shown(late)).body).toEqual(expected);
    expect(await passesOf(late.m.member.id)).toEqual([]);
    expect(refunded.filter((seen) => (seen['payload'] as Json)['transaction_id'] === late.transactionId)).toHaveLength(1);
  });

  it('refunds from the provider’s webhook when it comes first; the member’s completion then finds it done', async () => {
    const { tenant, ticket } = await boxOffice(1);
    const late = await lateBuyer(tenant, ticket, [ticketItem(ticket.id)], 1);

    const succeeded = event('payment_intent.succeeded', late.intent);
    expect((await deliver(succeeded)).body).toEqual(received);
    const charge = await chargeOf(late);
    expect(charge).toEqual(refundedOnce(tenant, late, 2500, 2500, 0));
    expect((await deliver(succeeded)).body).toEqual({ ...received, duplicate: true });
    expect((await deliver(event('payment_intent.succeeded', late.intent))).body).toEqual(received);

    const completed = await pay(late.m.headers, late.items, late.key);
    expect([completed.status, completed.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    expect(await chargeOf(late)).toEqual(charge);
    expect((await shown(late)).body).toMatchObject({ status: 'refunded', amount_refunded: 2500, refunds: [{ id: charge.refunds[0]!.id }] });
  });

  it('refunds once when the member’s completion and the webhook come at the same moment', async () => {
    const { tenant, ticket } = await boxOffice(1);
    const late = await lateBuyer(tenant, ticket, [ticketItem(ticket.id, { quantity: 1 })], 1);

    const [completed, delivered] = await Promise.all([
      pay(late.m.headers, late.items, late.key),
      deliver(event('payment_intent.succeeded', late.intent)),
    ]);
    expect([completed.status, completed.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    expect([delivered.status, delivered.body]).toEqual([200, received]);
    expect(await chargeOf(late)).toEqual(refundedOnce(tenant, late, 2500, 2500, 0));
    expect((await shown(late)).body).toMatchObject({ status: 'refunded', amount_refunded: 2500 });
    expect(await passesOf(late.m.member.id)).toEqual([]);
  });

  it('refunds only the ticket line of a cart whose membership was granted', async () => {
    const { tenant, pricing, ticket } = await boxOffice(1);
    const late = await lateBuyer(tenant, ticket, [item(pricing.id), ticketItem(ticket.id)], 1);

    const completed = await pay(late.m.headers, late.items, late.key);
    expect([completed.status, completed.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    const charge = await chargeOf(late);
    expect(charge).toEqual(refundedOnce(tenant, late, 3499, 2500, 1));
    expect(await memberships(tenant, late.m.member.id)).toHaveLength(1);
    const expected = summary(late, {
      status: 'succeeded',
      amount: 3499,
      amount_refunded: 2500,
      purchases: [
        { id: expect.any(Number), item_type: 'subscription', item_id: pricing.id, amount: 999 },
        { id: expect.any(Number), item_type: 'ti_ticket', item_id: ticket.id, amount: 2500 },
      ],
      refunds: [{ id: charge.refunds[0]!.id, amount: 2500, reason: null, created_at: anyIsoDate }],
    });
    const first = await shown(late);
    expect([first.status, first.body]).toEqual([200, expected]);

    // Replayed completions change nothing: one refund, the membership stays.
    expect((await deliver(event('payment_intent.succeeded', late.intent))).body).toEqual(received);
    const again = await pay(late.m.headers, late.items, late.key);
    expect([again.status, again.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    expect(await chargeOf(late)).toEqual(charge);
    expect((await shown(late)).body).toEqual(expected);
    expect(await memberships(tenant, late.m.member.id)).toHaveLength(1);
  });
});
