import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@masthead/core/clients';
import { freePort } from '@masthead/local-infra';
import { startBillingProcess, type BillingProcess } from '@masthead/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { billingKit, CARDS, poisonedSource } from './billing-support.js';
import type { Json } from './catalog-support.js';
import { collectEvents, eventWhere, useStack } from './support.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Renewals of paid memberships (docs/adr/0145), driven by a controllable clock: billing runs as
 * processes of its own that read the time from a file the test moves (no sleeps), two replicas
 * over one database, and one replica killed (SIGKILL) between the provider's charge and its
 * record. Money is counted in the provider: exactly one charge per membership and period.
 */
describe('renewals', () => {
  // No timers: the test runs each pass, on the replica it chooses (one test checks the timer).
  const s = useStack({ env: { RENEWAL_INTERVAL_MS: '0', RENEWAL_RETRY_HOURS: '24,48' } });
  const { shop, buyer, item, pay, paidCharges, provider } = billingKit(s);
  let clockFile: string;
  const replicas: BillingProcess[] = [];
  let primary: BillingProcess;
  let secondary: BillingProcess;

  const setClock = (date: Date) => writeFile(clockFile, date.toISOString());
  const runOn = async (replica: BillingProcess) => {
    const client = createClient('renewals', { billing: replica.address }, { defaultDeadlineMs: 20_000 });
    try {
      return await client.runDueRenewals({});
    } finally {
      client.close();
    }
  };
  const replica = async (options: Parameters<typeof startBillingProcess>[1] = {}) => {
    const started = await startBillingProcess(s.stack, { clockFile, address: `127.0.0.1:${await freePort()}`, ...options });
    replicas.push(started);
    return started;
  };

  beforeAll(async () => {
    clockFile = join(await mkdtemp(join(tmpdir(), 'billing-clock-')), 'now');
    await setClock(new Date());
    await s.stack.stopService('billing');
    // The gateway's billing (checkout) and a second replica over the same database.
    primary = await startBillingProcess(s.stack, { clockFile });
    replicas.push(primary);
    secondary = await replica();
  });
  afterAll(async () => {
    await Promise.all(replicas.map((process) => process.kill()));
  });

  /** A member who bought the Pricing; the membership and its end date. */
  async function subscriber(card: string = CARDS.visa) {
    const { tenant, pricing } = await shop();
    const m = await buyer(tenant, card);
    expect((await pay(m.headers, [item(pricing.id)])).status).toBe(200);
    const membership = await s.db('catalog').collection('memberships').findOne({ resource_id: tenant.resourceId, user_id: m.member.id });
    return { tenant, pricing, m, membershipId: membership!['_id'] as unknown as number, end: membership!['end_date'] as Date };
  }
  const membershipNow = (id: number) =>
    s
      .db('catalog')
      .collection('memberships')
      .findOne({ _id: id as never });
  const history = async (id: number) =>
    (await s.db('catalog').collection('membership_history').find({ membership_id: id }).sort({ _id: 1 }).toArray()).map(
      (row) => row['action'],
    );
  const renewalTransactions = (userId: number) =>
    s.db('billing').collection('transactions').find({ user_id: userId, kind: 'renewal' }).sort({ _id: 1 }).toArray();

  it('renews at the end date with one off-session charge, once, even when two replicas run the pass together', async () => {
    const events = collectEvents(s.nats, 'renewal_succeeded');
    const { m, membershipId, end } = await subscriber();
    await setClock(new Date(end.getTime() - MINUTE));
    expect(await runOn(primary)).toMatchObject({ renewed: 0 });

    await setClock(new Date(end.getTime() + MINUTE));
    const passes = await Promise.all([runOn(primary), runOn(secondary)]);
    expect(passes.reduce((sum, pass) => sum + pass.renewed, 0)).toBeGreaterThanOrEqual(1);
    const renewed = await membershipNow(membershipId);
    expect(renewed).toMatchObject({ active: true, autorenew: true });
    const expectedEnd = new Date(end);
    expectedEnd.setUTCMonth(expectedEnd.getUTCMonth() + 1);
    expect((renewed!['end_date'] as Date).getTime()).toBe(expectedEnd.getTime());
    expect(await history(membershipId)).toEqual(['created', 'renewed']);
    expect((await paidCharges(m.customerId)).map((charge) => charge['amount'])).toEqual([999, 999]);
    const [transaction] = await renewalTransactions(m.member.id);
    expect(transaction).toMatchObject({ status: 'succeeded', amount: 999, kind: 'renewal' });
    expect((await eventWhere(events, 'membership_id', membershipId))['payload']).toEqual({
      membership_id: membershipId,
      user_id: m.member.id,
      transaction_id: transaction!['_id'],
      period_end: expectedEnd.toISOString(),
    });
    // The member sees the renewal in their list.
    const list = await s.api('/user/transactions', { headers: m.headers, query: 'page=1' });
    expect((list.body['items'] as Json[]).map((row) => [row['status'], row['amount']])).toEqual([
      ['succeeded', 999],
      ['succeeded', 999],
    ]);
    // Nothing more is due: passes again charge nothing.
    await Promise.all([runOn(primary), runOn(secondary)]);
    expect(await paidCharges(m.customerId)).toHaveLength(2);
  });

  it('retries a failed renewal on the schedule, then lets the membership lapse, each step an event', async () => {
    const failures = collectEvents(s.nats, 'renewal_failed');
    const lapses = collectEvents(s.nats, 'membership_lapsed');
    const { m, membershipId, end } = await subscriber();
    // The member's default is now a card that the provider declines.
    const declined = await provider.attachCard(m.customerId, CARDS.declined);
    await s.api('/user/payment-provider/cardprovider/save-intents', {
      method: 'POST',
      headers: m.headers,
      json: { setup_intent: { payment_method: declined['id'] } },
    });

    const first = new Date(end.getTime() + MINUTE);
    await setClock(first);
    expect(await runOn(primary)).toMatchObject({ failed: 1 });
    expect((await eventWhere(failures, 'membership_id', membershipId))['payload']).toMatchObject({
      attempt: 1,
      next_attempt_at: new Date(first.getTime() + 24 * HOUR).toISOString(),
      error: 'card_declined',
    });
    expect(await membershipNow(membershipId)).toMatchObject({ active: true });

    await setClock(new Date(first.getTime() + 23 * HOUR));
    expect(await runOn(primary)).toMatchObject({ processed: 0 });
    const second = new Date(first.getTime() + 24 * HOUR + MINUTE);
    await setClock(second);
    expect(await runOn(secondary)).toMatchObject({ failed: 1 });
    const third = new Date(second.getTime() + 48 * HOUR + MINUTE);
    await setClock(third);
    expect(await runOn(primary)).toMatchObject({ lapsed: 1 });

    const steps = failures
      .filter((event) => (event['payload'] as Json)['membership_id'] === membershipId)
      .map((event) => event['payload'] as Json);
    expect(steps.map((step) => [step['attempt'], step['next_attempt_at']])).toEqual([
      [1, new Date(first.getTime() + 24 * HOUR).toISOString()],
      [2, new Date(second.getTime() + 48 * HOUR).toISOString()],
      [3, null],
    ]);
    expect((await eventWhere(lapses, 'membership_id', membershipId))['payload']).toEqual({
      membership_id: membershipId,
      user_id: m.member.id,
      reason: 'payment_failed',
    });
    expect(await membershipNow(membershipId)).toMatchObject({ active: false });
    expect(await history(membershipId)).toEqual(['created', 'lapsed']);
    expect((await renewalTransactions(m.member.id)).map((row) => row['status'])).toEqual(['failed', 'failed', 'failed']);
    // Only the purchase took money.
    expect(await paidCharges(m.customerId)).toHaveLength(1);
    expect(await runOn(primary)).toMatchObject({ processed: 0 });
  });

  it('never charges another member’s card that a record saved before ownership was checked names (docs/adr/0230)', async () => {
    const { tenant, m, membershipId, end } = await subscriber();
    const victim = await buyer(tenant);
    // The subscriber's default, as save-intents left it before the check: the victim's card.
    await poisonedSource(s, tenant, m.member.id, { customerId: victim.customerId, paymentMethod: victim.providerMethodId });
    await setClock(new Date(end.getTime() + MINUTE));
    expect(await runOn(primary)).toMatchObject({ renewed: 0, failed: 1 });
    expect(await paidCharges(victim.customerId)).toEqual([]);
    expect(await paidCharges(m.customerId)).toHaveLength(1);
    expect(await renewalTransactions(m.member.id)).toEqual([expect.objectContaining({ status: 'failed', error: 'no_payment_source' })]);
    expect(((await membershipNow(membershipId))!['end_date'] as Date).getTime()).toBe(end.getTime());
  });

  it('charges once when a replica is killed between the provider’s charge and its record', async () => {
    const { m, membershipId, end } = await subscriber();
    const doomed = await replica({ crashAfterWriteContaining: ':payment:' });
    await setClock(new Date(end.getTime() + MINUTE));
    await expect(runOn(doomed)).rejects.toBeDefined();
    expect(await doomed.exited).toBe('SIGKILL');
    // The provider charged; billing recorded neither the payment nor the renewal.
    expect(await paidCharges(m.customerId)).toHaveLength(2);
    expect(((await membershipNow(membershipId))!['end_date'] as Date).getTime()).toBe(end.getTime());
    expect(await renewalTransactions(m.member.id)).toEqual([expect.objectContaining({ status: 'pending', payment_id: null })]);

    expect(await runOn(secondary)).toMatchObject({ renewed: 1 });
    expect(await paidCharges(m.customerId)).toHaveLength(2);
    expect(await renewalTransactions(m.member.id)).toEqual([
      expect.objectContaining({ status: 'succeeded', payment_id: expect.stringMatching(/^pi_/) }),
    ]);
    expect(((await membershipNow(membershipId))!['end_date'] as Date).getTime()).toBeGreaterThan(end.getTime());
    expect(await history(membershipId)).toEqual(['created', 'renewed']);
  });

  it('runs passes on its own timer', async () => {
    const { m, membershipId, end } = await subscriber();
    const ticking = await replica({ env: { RENEWAL_INTERVAL_MS: '200' } });
    await setClock(new Date(end.getTime() + MINUTE));
    const deadline = Date.now() + 20_000;
    while ((await history(membershipId)).length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await history(membershipId)).toEqual(['created', 'renewed']);
    expect(await paidCharges(m.customerId)).toHaveLength(2);
    await ticking.kill();
  });
});
