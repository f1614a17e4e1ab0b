import { startDisputingCardProvider, type DisputingCardProvider } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { billingKit, signedWebhooks } from './billing-support.js';
import { cardProviderTenant } from './card-provider-support.js';
import type { Json } from './catalog-support.js';
import { signedInMember } from './member-session.js';
import { collectEvents, eventually, useStack } from './support.js';
import { ticketingKit } from './ti-events-support.js';

const SECRET = 'whsec_masthead_revocations';

/**
 * A refund, or a lost dispute, takes back what the refunded lines granted (docs/adr/0234):
 * memberships, passes with their assignments, gifts with their recipients' memberships — and the
 * members see it in their reads. Bought through the gateway with localstripe; refunds made on the
 * provider and told by its signed webhooks, as an operator's refund from the dashboard is.
 */
describe('refunds and lost disputes take back what the lines granted', { timeout: 120_000 }, () => {
  // Billing reaches localstripe through the front that adds disputes (it refetches them, ADR 0231).
  const env: Record<string, string> = { CARDPROVIDER_WEBHOOK_SECRETS: SECRET, GRPC_DEADLINE_MS: '20000' };
  let disputes: DisputingCardProvider;
  beforeAll(async () => {
    disputes = await startDisputingCardProvider(inject('localStripeUrl'));
    env['CARDPROVIDER_API_BASE'] = disputes.url;
  });
  afterAll(() => disputes?.stop());
  const s = useStack({ env });
  const { provider, kit, buyer, pay } = billingKit(s);
  const ticketing = ticketingKit(s);
  const { event, deliver } = signedWebhooks(s, SECRET);
  const api = (headers: Record<string, string>, method: string, path: string, json?: unknown) => s.api(path, { method, headers, json });

  /** A test-mode resource with ticketing, a 25.00 ticket of 10 units, a 50.00 gift Pricing and a 9.99 membership. */
  async function shop() {
    const tenant = await cardProviderTenant(s, { ti_events_system: true });
    const tiEvent = await ticketing.event(tenant, 'Launch');
    const ticket = await ticketing.ticket(tiEvent.id, 'General', { quantity: 10 });
    const plan = await kit.plan(tenant, 'digital', { title: 'Digital' });
    const gift = await kit.pricing(plan.id, 'Gift year', { price: 5000, currency: 'USD', period: '1 year', type: 'gift' });
    const monthly = await kit.pricing(plan.id, 'Monthly', { price: 999, currency: 'USD', period: '1 month' });
    const member = await buyer(tenant);
    return { tenant, tiEvent, ticket, gift, monthly, member };
  }
  type Shop = Awaited<ReturnType<typeof shop>>;
  const ticketItem = (ticketId: number, quantity: number) => ({ item_type: 'ti_ticket', item_key: String(ticketId), quantity });
  const giftItem = (pricingId: number) => ({ item_type: 'gift', item_key: String(pricingId) });
  const membershipItem = (pricingId: number) => ({ item_type: 'subscription', item_key: String(pricingId) });

  /** Buys the items; answers the transaction record and what the member got. */
  async function bought(a: Shop, items: Json[]) {
    const answer = await pay(a.member.headers, items);
    expect(answer.status).toBe(200);
    const transactionId = (answer.body['transaction'] as Json)['id'] as number;
    const purchases = answer.body['purchases'] as Json[];
    return { transactionId, purchases, record: await transaction(transactionId) };
  }
  const transaction = async (id: number) =>
    (await s
      .db('billing')
      .collection('transactions')
      .findOne({ _id: id as never }))!;

  /** A recipient activates the gift's one slot and holds its membership. */
  async function giftActivated(a: Shop, sponsorshipId: number) {
    const slots = await api(a.member.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorshipId}/slots`);
    const code = ((slots.body['items'] as Json[])[0] as Json)['activation_code'] as string;
    const recipient = await signedInMember(s, a.tenant);
    const activated = await api(recipient.headers, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', { activation_code: code });
    expect(activated.status).toBe(200);
    return { recipient, code, membershipId: activated.body['user_subscription_id'] as number };
  }

  /** What a member sees: their plans, their passes, the sponsorships they bought. */
  const plansOf = async (headers: Record<string, string>) =>
    ((await api(headers, 'GET', '/user/plans')).body['items'] as Json[]).map((plan) => plan['id']);
  const passesOf = async (headers: Record<string, string>) => (await api(headers, 'GET', '/user/ti-event-tickets')).body;
  const sponsorshipsOf = async (headers: Record<string, string>) =>
    ((await api(headers, 'GET', '/sponsor/sponsored-subscriptions')).body['items'] as Json[]).map((item) => item['id']);
  const available = async (a: Shop) =>
    ((await s.api(`/ti-event/${a.tiEvent.id}/tickets`, { headers: { resource: a.tenant.publicKey } })).body['items'] as Json[])[0]![
      'available'
    ];
  const activeMembership = async (id: number) =>
    (
      await s
        .db('catalog')
        .collection('memberships')
        .findOne({ _id: id as never })
    )?.['active'] as boolean | undefined;

  /** The provider's `charge.refunded` event for the transaction's charge, as the provider holds it now. */
  const refundedEvent = async (record: Json) => event('charge.refunded', await provider.charge(record['charge_id'] as string));
  /** The provider's `charge.dispute.closed` event of a dispute it holds as lost on the transaction's charge. */
  const lostDispute = (record: Json) =>
    event('charge.dispute.closed', {
      ...disputes.dispute({
        charge: record['charge_id'] as string,
        paymentIntent: record['payment_id'] as string,
        amount: record['amount'] as number,
        status: 'lost',
      }),
    });

  it('a fully refunded ticket purchase loses its passes, their assignment and tokens; its units are sold again; once', async () => {
    const a = await shop();
    const revoked = collectEvents(s.nats, 'ti_event_passes_revoked');
    const unassigned = collectEvents(s.nats, 'ti_event_pass_unassigned');
    const { transactionId, record } = await bought(a, [ticketItem(a.ticket.id, 2)]);
    const passIds = (await s.db('community').collection('ti_event_ticket_passes').find({ ticket_id: a.ticket.id }).toArray()).map(
      (pass) => pass['_id'] as unknown as number,
    );
    expect(passIds).toHaveLength(2);
    expect((await api(a.member.headers, 'PUT', `/user/pass/${passIds[0]}/assign`, { assign_id: a.member.member.id })).status).toBe(200);
    expect(await passesOf(a.member.headers)).toHaveProperty('user_ti_events');
    expect((await api(a.member.headers, 'GET', `/user/ti-event/${a.tiEvent.id}/access`)).body).toEqual({
      access: true,
      pass_ids: [passIds[0]],
    });
    expect(await available(a)).toBe(8);
    const tokens = () =>
      s
        .db('community')
        .collection('ti_event_pass_tokens')
        .countDocuments({ pass_id: { $in: passIds } });
    expect(await tokens()).toBe(1);

    await provider.refund(record['payment_id'] as string);
    const refunded = await refundedEvent(record);
    expect((await deliver(refunded)).body).toEqual({ received: true, duplicate: false, ignored: false });

    // The member sees no pass any more, attends nothing, and the units are for sale again.
    expect(await passesOf(a.member.headers)).toEqual({});
    expect((await api(a.member.headers, 'GET', '/user/ti-events')).body).toEqual({ items: [] });
    expect((await api(a.member.headers, 'GET', `/user/ti-event/${a.tiEvent.id}/access`)).body).toEqual({ access: false, pass_ids: [] });
    expect(await available(a)).toBe(10);
    expect(await tokens()).toBe(0);
    const [announced] = await eventually(async () => (revoked.length > 0 ? revoked : undefined));
    expect(announced!['payload']).toMatchObject({ pass_ids: passIds, owner_id: a.member.member.id, reason: 'refunded' });
    await eventually(async () => (unassigned.length > 0 ? unassigned : undefined));
    expect((await transaction(transactionId))['purchases']).toEqual([
      expect.objectContaining({ revoked: 'refunded', revoked_at: expect.any(Date) }),
    ]);

    // The provider tells it again (another event, the same charge): nothing is taken back twice.
    expect((await deliver(await refundedEvent(record))).status).toBe(200);
    expect((await deliver(refunded)).body).toMatchObject({ duplicate: true });
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(revoked).toHaveLength(1);
    expect(unassigned).toHaveLength(1);
    expect(await available(a)).toBe(10);
  });

  it('a refunded gift loses its slot and its recipient’s membership; the code admits no one', async () => {
    const a = await shop();
    const ended = collectEvents(s.nats, 'membership_ended');
    const cleared = collectEvents(s.nats, 'sponsor_slot_cleared');
    const { record, purchases } = await bought(a, [giftItem(a.gift.id)]);
    const sponsorshipId = purchases[0]!['sponsored_subscription_id'] as number;
    const { recipient, code, membershipId } = await giftActivated(a, sponsorshipId);
    expect(await plansOf(recipient.headers)).toHaveLength(1);

    await provider.refund(record['payment_id'] as string);
    expect((await deliver(await refundedEvent(record))).status).toBe(200);

    expect(await sponsorshipsOf(a.member.headers)).toEqual([]);
    expect(await plansOf(recipient.headers)).toEqual([]);
    expect(await activeMembership(membershipId)).toBe(false);
    const history = await s.db('catalog').collection('membership_history').find({ membership_id: membershipId }).toArray();
    expect(history.map((row) => row['action'])).toEqual(['created', 'refunded']);
    const late = await signedInMember(s, a.tenant);
    expect((await api(late.headers, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', { activation_code: code })).status).toBe(
      404,
    );
    await eventually(async () => (cleared.length > 0 ? cleared : undefined));
    expect(cleared[0]!['payload']).toMatchObject({
      sponsorship_id: sponsorshipId,
      user_ids: [recipient.member.id],
      membership_ids: [membershipId],
    });

    // Again: nothing more ends.
    expect((await deliver(await refundedEvent(record))).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ended.filter((one) => (one['payload'] as Json)['membership_id'] === membershipId)).toHaveLength(1);
    expect(cleared).toHaveLength(1);
  });

  it('a lost dispute takes back every line: the membership, the passes, the gift and its recipient’s membership', async () => {
    const a = await shop();
    const revoked = collectEvents(s.nats, 'ti_event_passes_revoked');
    const { transactionId, record, purchases } = await bought(a, [
      membershipItem(a.monthly.id),
      ticketItem(a.ticket.id, 1),
      giftItem(a.gift.id),
    ]);
    const { recipient, membershipId } = await giftActivated(a, purchases[2]!['sponsored_subscription_id'] as number);
    expect(await plansOf(a.member.headers)).toHaveLength(1);

    const lost = lostDispute(record);
    expect((await deliver(lost)).status).toBe(200);
    expect(await plansOf(a.member.headers)).toEqual([]);
    expect(await passesOf(a.member.headers)).toEqual({});
    expect(await sponsorshipsOf(a.member.headers)).toEqual([]);
    expect(await plansOf(recipient.headers)).toEqual([]);
    expect(await activeMembership(membershipId)).toBe(false);
    expect(((await transaction(transactionId))['purchases'] as Json[]).map((line) => line['revoked'])).toEqual([
      'disputed',
      'disputed',
      'disputed',
    ]);

    // The dispute told again under another event: nothing is taken back twice.
    expect((await deliver({ ...lost, id: `${String(lost['id'])}-again` })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(revoked).toHaveLength(1);
  });

  it('a partial refund covering one line whole takes back only that line', async () => {
    const a = await shop();
    const { transactionId, record } = await bought(a, [membershipItem(a.monthly.id), ticketItem(a.ticket.id, 1)]);
    // The ticket's 25.00, refunded by hand on the provider.
    await provider.refund(record['payment_id'] as string, 2500);
    expect((await deliver(await refundedEvent(record))).status).toBe(200);
    expect(await passesOf(a.member.headers)).toEqual({});
    expect(await plansOf(a.member.headers)).toHaveLength(1);
    // An amount that is no line's whole takes nothing more back: an operator decides.
    await provider.refund(record['payment_id'] as string, 100);
    expect((await deliver(await refundedEvent(record))).status).toBe(200);
    expect(await plansOf(a.member.headers)).toHaveLength(1);
    expect(((await transaction(transactionId))['purchases'] as Json[]).map((line) => line['revoked'] ?? null)).toEqual([null, 'refunded']);
  });
});
