import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@masthead/core/clients';
import { startBillingProcess, type BillingProcess } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingKit } from './billing-support.js';
import { cardProviderTenant } from './card-provider-support.js';
import { publicPricing, type Json } from './catalog-support.js';
import { signedInMember } from './member-session.js';
import { anyIsoDate, anyRequestId, collectEvents, eventually, eventWhere, useStack } from './support.js';

const YEAR_MS = 366 * 24 * 3_600_000;

/**
 * Gifts bought at checkout (docs/adr/0142, 0156, 0158), from the purchase to the recipient's
 * membership and its renewals: POST /payment with a `gift` item makes the sponsorship, the
 * recipient activates its slot's code, and billing renews the membership on the sponsor's card
 * while the sponsor pays. Billing runs as a process of its own reading a clock the test moves.
 */
describe('checkout: gifts', () => {
  const s = useStack({ env: { RENEWAL_INTERVAL_MS: '0' } });
  const { kit, buyer, pay, paidCharges } = billingKit(s);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });
  let clockFile: string;
  let billing: BillingProcess;
  const setClock = (date: Date) => writeFile(clockFile, date.toISOString());
  const runRenewals = async () => {
    const client = createClient('renewals', { billing: billing.address }, { defaultDeadlineMs: 20_000 });
    try {
      return await client.runDueRenewals({});
    } finally {
      client.close();
    }
  };

  beforeAll(async () => {
    clockFile = join(await mkdtemp(join(tmpdir(), 'billing-clock-')), 'now');
    await setClock(new Date());
    await s.stack.stopService('billing');
    billing = await startBillingProcess(s.stack, { clockFile });
  });
  afterAll(async () => {
    await billing?.kill();
  });

  /** A test-mode resource with a 50.00 USD yearly gift Pricing (and its standard sibling) and a sponsor with a card. */
  async function giftShop() {
    const tenant = await cardProviderTenant(s);
    const plan = await kit.plan(tenant, 'digital', { title: 'Digital' });
    const gift = await kit.pricing(plan.id, 'Gift year', { price: 5000, currency: 'USD', period: '1 year', type: 'gift' });
    const standard = await kit.pricing(plan.id, 'Monthly', { price: 999, currency: 'USD', period: '1 month' });
    const sponsor = await buyer(tenant);
    return { tenant, plan, gift, standard, sponsor };
  }
  type Shop = Awaited<ReturnType<typeof giftShop>>;
  const giftItem = (pricingId: number) => ({ item_type: 'gift', item_key: String(pricingId) });
  const api = (headers: Record<string, string>, method: string, path: string, json?: unknown) => s.api(path, { method, headers, json });

  /** The sponsor buys the gift; a recipient activates its code. */
  async function givenAndActivated(shop: Shop) {
    const bought = await pay(shop.sponsor.headers, [giftItem(shop.gift.id)]);
    expect(bought.status).toBe(200);
    const sponsorshipId = (bought.body['purchases'] as Json[])[0]!['sponsored_subscription_id'] as number;
    const slots = await api(shop.sponsor.headers, 'GET', `/sponsor/sponsored-subscriptions/${sponsorshipId}/slots`);
    const code = ((slots.body['items'] as Json[])[0] as Json)['activation_code'] as string;
    const recipient = await signedInMember(s, shop.tenant);
    const activated = await api(recipient.headers, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', { activation_code: code });
    expect(activated.status).toBe(200);
    const membershipId = activated.body['user_subscription_id'] as number;
    const slotId = activated.body['slot_id'] as number;
    // Billing learns of the activation from its event and starts renewing it.
    const renewal = await eventually(() =>
      s
        .db('billing')
        .collection('renewals')
        .findOne({ _id: membershipId as never })
        .then((row) => row ?? undefined),
    );
    return { sponsorshipId, recipient, membershipId, slotId, renewal };
  }
  const membershipRow = (id: number) =>
    s
      .db('catalog')
      .collection('memberships')
      .findOne({ _id: id as never });

  it('buys a gift: the sponsorship with its slot, which a recipient previews and activates into the membership', async () => {
    const shop = await giftShop();
    const { tenant, plan, gift, sponsor } = shop;
    const quote = await api(sponsor.headers, 'POST', '/payment/calculate-price', { items: [giftItem(gift.id)] });
    const quoted = {
      item_type: 'gift',
      item_key: String(gift.id),
      item_id: gift.id,
      title: 'Digital: Gift year',
      price: 5000,
      discount: 0,
      amount: 5000,
      currency: 'USD',
      promo: null,
    };
    expect({ status: quote.status, body: quote.body }).toEqual({
      status: 200,
      body: { total_price: 5000, currency: 'USD', purchases: [quoted] },
    });

    const created = collectEvents(s.nats, 'sponsorship_created');
    const bought = await pay(sponsor.headers, [giftItem(gift.id)], 'gift-1');
    expect(bought.status).toBe(200);
    const sponsorships = await api(sponsor.headers, 'GET', '/sponsor/sponsored-subscriptions');
    const [listed] = sponsorships.body['items'] as Json[];
    const sponsorshipId = listed!['id'] as number;
    expect(bought.body).toEqual({
      result: true,
      status: 'succeeded',
      total_price: 5000,
      currency: 'USD',
      purchases: [{ id: expect.any(Number), ...quoted, sponsored_subscription_id: sponsorshipId }],
      transaction: expect.objectContaining({
        status: 'succeeded',
        amount: 5000,
        purchases: [expect.objectContaining({ item_type: 'gift', item_id: gift.id })],
      }),
      client_secret: null,
    });
    const slot = ((listed!['slots'] as Json[])[0] as Json)!;
    expect({ status: sponsorships.status, body: sponsorships.body }).toEqual({
      status: 200,
      body: {
        items: [
          {
            id: sponsorshipId,
            sponsor_id: sponsor.member.id,
            subscription_id: gift.id,
            title: 'Gift year',
            description: '',
            is_paying_by_sponsor: true,
            autorenew: true,
            is_allowed_next_subscription: false,
            created_at: anyIsoDate,
            updated_at: anyIsoDate,
            slots: [
              {
                id: expect.any(Number),
                sponsored_subscription_id: sponsorshipId,
                activation_code: expect.stringMatching(/^[0-9a-f]{40}$/),
                recipient_emails: [],
                seats: 1,
                used_seats: 0,
                created_at: anyIsoDate,
                updated_at: anyIsoDate,
              },
            ],
          },
        ],
      },
    });
    expect((await eventWhere(created, 'sponsorship_id', sponsorshipId))['payload']).toMatchObject({
      sponsor_id: sponsor.member.id,
      pricing_id: gift.id,
    });

    // A retry with the same key answers the same: one charge, one sponsorship.
    const retry = await pay(sponsor.headers, [giftItem(gift.id)], 'gift-1');
    expect([retry.status, retry.body]).toEqual([200, bought.body]);
    expect(await paidCharges(sponsor.customerId)).toHaveLength(1);
    expect((await api(sponsor.headers, 'GET', '/sponsor/sponsored-subscriptions')).body['items']).toHaveLength(1);

    const recipient = await signedInMember(s, tenant);
    const preview = await api(recipient.headers, 'GET', `/recipient/sponsored-subscriptions/slots/${slot['activation_code'] as string}`);
    expect({ status: preview.status, body: preview.body }).toEqual({
      status: 200,
      body: { item: { ...slot, updated_at: anyIsoDate, sponsored_subscription: { ...listed, slots: undefined, updated_at: anyIsoDate } } },
    });
    const activated = await api(recipient.headers, 'PUT', '/recipient/sponsored-subscriptions/slots/activate', {
      activation_code: slot['activation_code'],
    });
    expect({ status: activated.status, body: activated.body }).toEqual({
      status: 200,
      body: {
        result: true,
        slot_id: slot['id'],
        sponsored_subscription_id: sponsorshipId,
        subscription_id: gift.id,
        user_subscription_id: expect.any(Number),
        is_paying_by_sponsor: true,
      },
    });
    const profile = await api(recipient.headers, 'GET', '/user');
    expect(profile.body['subscriptions']).toEqual([
      {
        ...publicPricing(gift, plan),
        user_subscription_id: activated.body['user_subscription_id'],
        subscription_end_date: anyIsoDate,
        autorenew: true,
        is_team_subscription: false,
      },
    ]);
    // The sponsor holds no membership of their own; the recipient paid nothing.
    expect(
      await s.db('catalog').collection('memberships').countDocuments({ resource_id: tenant.resourceId, user_id: sponsor.member.id }),
    ).toBe(0);
  });

  it('sells only gift Pricings as gifts', async () => {
    const { standard, sponsor } = await giftShop();
    for (const key of [String(standard.id), '0', 'x', '999999']) {
      const response = await pay(sponsor.headers, [{ item_type: 'gift', item_key: key }]);
      expect([key, response.status, response.body]).toEqual([key, 409, error('invalid_item_key')]);
    }
    expect(await paidCharges(sponsor.customerId)).toEqual([]);
  });

  it('renews an activated gift on the sponsor’s card at its end', async () => {
    const shop = await giftShop();
    const { recipient, membershipId, renewal } = await givenAndActivated(shop);
    expect(renewal).toMatchObject({ user_id: recipient.member.id, payer_id: shop.sponsor.member.id, status: 'active' });
    const end = (await membershipRow(membershipId))!['end_date'] as Date;
    expect(end.getTime()).toBeGreaterThan(Date.now() + YEAR_MS / 2);

    await setClock(new Date(end.getTime() + 60_000));
    // Gifts of earlier tests may be due as well: this one's outcome is checked below.
    await runRenewals();
    const renewed = (await membershipRow(membershipId))!;
    expect(renewed['active']).toBe(true);
    expect((renewed['end_date'] as Date).getTime()).toBeGreaterThan(end.getTime() + YEAR_MS / 2);
    // The sponsor paid twice (the gift and its renewal); the recipient has no card and paid nothing.
    expect((await paidCharges(shop.sponsor.customerId)).map((charge) => charge['amount'])).toEqual([5000, 5000]);
    const renewals = await s
      .db('billing')
      .collection('transactions')
      .find({ resource_id: shop.tenant.resourceId, kind: 'renewal' })
      .toArray();
    expect(renewals.map((row) => [row['user_id'], row['status'], row['amount']])).toEqual([[shop.sponsor.member.id, 'succeeded', 5000]]);
    expect(renewals[0]!['purchases']).toEqual([
      expect.objectContaining({ item_type: 'subscription', item_id: shop.gift.id, amount: 5000, fulfilled_id: expect.any(Number) }),
    ]);
  });

  it('does not renew once the recipient turned sponsor payment off: the membership lapses, nothing is charged', async () => {
    const shop = await giftShop();
    const { recipient, membershipId, slotId } = await givenAndActivated(shop);
    const off = await api(recipient.headers, 'PUT', `/recipient/sponsored-subscriptions/slots/${slotId}/sponsor/turn-off`);
    expect([off.status, off.body['is_paying_by_sponsor']]).toEqual([200, false]);
    const lapsed = collectEvents(s.nats, 'membership_lapsed');
    const end = (await membershipRow(membershipId))!['end_date'] as Date;

    await setClock(new Date(end.getTime() + 60_000));
    await runRenewals();
    expect((await eventWhere(lapsed, 'membership_id', membershipId))['payload']).toEqual({
      membership_id: membershipId,
      user_id: recipient.member.id,
      reason: 'sponsor_payment_off',
    });
    expect((await membershipRow(membershipId))!['active']).toBe(false);
    expect(await paidCharges(shop.sponsor.customerId)).toHaveLength(1);
    expect(await s.db('billing').collection('transactions').countDocuments({ resource_id: shop.tenant.resourceId, kind: 'renewal' })).toBe(
      0,
    );
  });
});
