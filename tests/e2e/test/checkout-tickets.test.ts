import type { Ticket } from '@masthead/proto/community/ti_events';
import { describe, expect, it } from 'vitest';
import { billingKit, CARDS } from './billing-support.js';
import { cardProviderTenant } from './card-provider-support.js';
import type { Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, useStack } from './support.js';
import { eventBody, passBody, ticketBody, ticketingKit } from './ti-events-support.js';

/**
 * Event tickets bought at checkout (docs/adr/0142, 0151, 0157): POST /payment with `ti_ticket`
 * items through the gateway, billing, community's ticket inventory, FerretDB and localstripe.
 * Money is counted in the provider, passes in community's records and through the member reads.
 */
describe('checkout: event tickets', () => {
  // The race below runs 50 checkouts at once on a loaded machine: generous internal deadlines.
  const s = useStack({ env: { GRPC_DEADLINE_MS: '20000' } });
  const { provider, buyer, pay, paidCharges } = billingKit(s);
  const ticketing = ticketingKit(s);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  const ticketItem = (ticketId: number, extra: Json = {}) => ({ item_type: 'ti_ticket', item_key: String(ticketId), ...extra });

  /** A test-mode resource with ticketing on, an event and a 25.00 USD ticket of `quantity` units. */
  async function boxOffice(quantity = 100) {
    const tenant = await cardProviderTenant(s, { ti_events_system: true });
    const event = await ticketing.event(tenant, 'Launch');
    const ticket = await ticketing.ticket(event.id, 'General', { quantity });
    return { tenant, event, ticket };
  }
  const quoted = (ticket: Ticket, quantity = 1, fields: Json = {}) => ({
    item_type: 'ti_ticket',
    item_key: String(ticket.id),
    item_id: ticket.id,
    title: 'Launch: General',
    price: 2500 * quantity,
    discount: 0,
    amount: 2500 * quantity,
    currency: 'USD',
    promo: null,
    ...fields,
  });
  const passesOf = (ticketId: number) =>
    s.db('community').collection('ti_event_ticket_passes').find({ ticket_id: ticketId }).sort({ _id: 1 }).toArray();
  const available = async (tenantKey: string, eventId: number) => {
    const response = await s.api(`/ti-event/${eventId}/tickets`, { headers: { resource: tenantKey } });
    return ((response.body['items'] as Json[])[0] as Json)['available'];
  };

  it('quotes and buys tickets: one charge, passes the member sees in the event reads', async () => {
    const { tenant, event, ticket } = await boxOffice();
    const m = await buyer(tenant);
    const quote = await s.api('/payment/calculate-price', {
      method: 'POST',
      headers: m.headers,
      json: { items: [ticketItem(ticket.id, { quantity: 2 })] },
    });
    expect({ status: quote.status, body: quote.body }).toEqual({
      status: 200,
      body: { total_price: 5000, currency: 'USD', purchases: [quoted(ticket, 2)] },
    });

    const response = await pay(m.headers, [ticketItem(ticket.id, { quantity: 2, payment_method_id: m.methodId })]);
    expect(response.status).toBe(200);
    const passes = await passesOf(ticket.id);
    expect(passes.map((pass) => pass['owner_id'])).toEqual([m.member.id, m.member.id]);
    const [p1, p2] = passes.map((pass) => pass['_id'] as unknown as number);
    const purchaseId = (response.body['purchases'] as Json[])[0]!['id'];
    expect(response.body).toEqual({
      result: true,
      status: 'succeeded',
      total_price: 5000,
      currency: 'USD',
      purchases: [{ id: expect.any(Number), ...quoted(ticket, 2), ti_event_pass_id: p1 }],
      transaction: {
        id: expect.any(Number),
        status: 'succeeded',
        amount: 5000,
        amount_refunded: 0,
        currency: 'USD',
        pay_system: 'cardprovider',
        purchases: [{ id: purchaseId, item_type: 'ti_ticket', item_id: ticket.id, amount: 5000 }],
        receipt: null,
        refunds: [],
        payment_source: { source_type: 'payment-method', id: m.methodId },
        error: null,
        created_at: anyIsoDate,
        card: { brand: 'visa', last4: '4242' },
      },
      client_secret: null,
    });
    expect((await paidCharges(m.customerId)).map((charge) => charge['amount'])).toEqual([5000]);
    expect(await available(tenant.publicKey, event.id)).toBe(98);

    const events = await s.api('/user/ti-events', { headers: m.headers });
    expect({ status: events.status, body: events.body }).toEqual({ status: 200, body: { items: [eventBody(event)] } });
    const groups = await s.api('/user/ti-event-tickets', { headers: m.headers });
    expect({ status: groups.status, body: groups.body }).toEqual({
      status: 200,
      body: {
        user_ti_events: [
          {
            ...eventBody(event),
            user_ti_event_tickets: [
              {
                ...ticketBody(ticket, 98),
                user_ti_event_ticket_passes: [passBody(p1!, ticket, m.member.id), passBody(p2!, ticket, m.member.id)],
              },
            ],
          },
        ],
      },
    });
  });

  it('answers a retry with the same Idempotency-Key with the first answer: one charge, the same passes', async () => {
    const { tenant, ticket } = await boxOffice();
    const m = await buyer(tenant);
    const first = await pay(m.headers, [ticketItem(ticket.id, { quantity: 3 })], 'tickets-1');
    expect(first.status).toBe(200);
    const burst = await Promise.all(Array.from({ length: 4 }, () => pay(m.headers, [ticketItem(ticket.id, { quantity: 3 })], 'tickets-1')));
    expect(burst.map((response) => [response.status, response.body])).toEqual(Array(4).fill([200, first.body]));
    expect(await passesOf(ticket.id)).toHaveLength(3);
    expect(await paidCharges(m.customerId)).toHaveLength(1);
    // Parallel first requests with one key share one reservation and one charge.
    const together = await Promise.all(Array.from({ length: 4 }, () => pay(m.headers, [ticketItem(ticket.id)], 'tickets-2')));
    expect(together.map((response) => response.status)).toEqual([200, 200, 200, 200]);
    expect(new Set(together.map((response) => (response.body['transaction'] as Json)['id'])).size).toBe(1);
    expect(await passesOf(ticket.id)).toHaveLength(4);
    expect(await paidCharges(m.customerId)).toHaveLength(2);
    const reused = await pay(m.headers, [ticketItem(ticket.id, { quantity: 2 })], 'tickets-1');
    expect([reused.status, reused.body]).toEqual([409, error('idempotency_key_reused')]);
  });

  it('answers each documented error, charging nothing and holding nothing', async () => {
    const { tenant, event, ticket } = await boxOffice(3);
    const m = await buyer(tenant);
    const retired = await ticketing.ticket(event.id, 'Retired', { active: false });
    const closed = await ticketing.event(tenant, 'Closed', { active: false });
    const closedTicket = await ticketing.ticket(closed.id, 'Late');
    const elsewhere = await boxOffice();
    const quote = (items: Json[]) => s.api('/payment/calculate-price', { method: 'POST', headers: m.headers, json: { items } });
    for (const key of ['0', 'abc', String(retired.id), String(closedTicket.id), String(elsewhere.ticket.id), '999999']) {
      const response = await quote([{ item_type: 'ti_ticket', item_key: key }]);
      expect([key, response.status, response.body]).toEqual([key, 409, error('invalid_item_key')]);
    }
    for (const quantity of [0, -1, 101, 1.5, 'two', true]) {
      const response = await pay(m.headers, [ticketItem(ticket.id, { quantity })]);
      expect([quantity, response.status, response.body]).toEqual([quantity, 409, error('invalid_quantity')]);
    }
    const tooMany = await pay(m.headers, [ticketItem(ticket.id, { quantity: 4 })]);
    expect([tooMany.status, tooMany.body]).toEqual([409, error('ti_event_tickets_sold_out')]);

    // A declined card gives the units back.
    const declined = await buyer(tenant, CARDS.declined);
    const refused = await pay(declined.headers, [ticketItem(ticket.id, { quantity: 3 })]);
    expect([refused.status, refused.body]).toEqual([409, error('payment_failed')]);
    expect(await available(tenant.publicKey, event.id)).toBe(3);
    expect(await passesOf(ticket.id)).toEqual([]);

    // A cart whose second line cannot be reserved releases the first: the key cannot take it again.
    const second = await ticketing.ticket(event.id, 'VIP', { quantity: 1 });
    const cart = [ticketItem(ticket.id, { quantity: 2 }), ticketItem(second.id, { quantity: 2 })];
    const partial = await pay(m.headers, cart, 'cart-1');
    expect([partial.status, partial.body]).toEqual([409, error('ti_event_tickets_sold_out')]);
    expect(await available(tenant.publicKey, event.id)).toBe(3);
    const again = await pay(m.headers, cart, 'cart-1');
    expect([again.status, again.body]).toEqual([409, error('purchase_released')]);

    expect(await paidCharges(m.customerId)).toEqual([]);
    expect(await provider.chargesOf(m.customerId)).toEqual([]);
    expect(await s.db('billing').collection('transactions').countDocuments({ user_id: m.member.id })).toBe(0);
  });

  it('never oversells: 50 parallel checkouts of the last 10 tickets give 10 passes and 10 charges', async () => {
    const { tenant, event, ticket } = await boxOffice(12);
    const early = await buyer(tenant);
    expect((await pay(early.headers, [ticketItem(ticket.id, { quantity: 2 })])).status).toBe(200);
    const buyers = await Promise.all(Array.from({ length: 5 }, () => buyer(tenant)));

    const responses = await Promise.all(
      Array.from({ length: 50 }, (_, index) => pay(buyers[index % 5]!.headers, [ticketItem(ticket.id)], `race-${index}`)),
    );
    const won = responses.filter((response) => response.status === 200);
    const lost = responses.filter((response) => response.status !== 200);
    expect(won).toHaveLength(10);
    expect(won.every((response) => response.body['status'] === 'succeeded')).toBe(true);
    expect(lost.map((response) => [response.status, response.body])).toEqual(Array(40).fill([409, error('ti_event_tickets_sold_out')]));

    expect(await passesOf(ticket.id)).toHaveLength(12);
    const raced = await s
      .db('billing')
      .collection('transactions')
      .find({ resource_id: tenant.resourceId, user_id: { $ne: early.member.id } })
      .toArray();
    expect(raced.map((transaction) => transaction['status'])).toEqual(Array(10).fill('succeeded'));
    // Money is taken exactly ten times, and no losing checkout made a charge of any status.
    const paid = (await Promise.all(buyers.map((b) => paidCharges(b.customerId)))).flat();
    expect(paid.map((charge) => charge['amount'])).toEqual(Array(10).fill(2500));
    expect((await Promise.all(buyers.map((b) => provider.chargesOf(b.customerId)))).flat()).toHaveLength(10);
    expect(await available(tenant.publicKey, event.id)).toBe(0);
  });
});
