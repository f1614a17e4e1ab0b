import { randomBytes } from 'node:crypto';
import { parseOrThrow } from '@masthead/core/errors';
import { openServiceRuntime, type ServiceRuntime } from '@masthead/core/service';
import { FAKE_PROVIDER_KEY, freePort } from '@masthead/local-infra';
import { testInfra, type TestInfra } from '@masthead/service-testkit';
import type Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { CardProvider } from '../src/card-provider/card-provider.js';
import { cardProviderClient } from '../src/card-provider/client.js';
import { StripeCardProvider } from '../src/card-provider/stripe-card-provider.js';
import { loadBillingConfig } from '../src/config.js';
import { FulfilmentRegistry } from '../src/checkout/fulfilment.js';
import { ProviderWriteLedger } from '../src/provider-writes/provider-write.ledger.js';
import { PurchaseRevocation } from '../src/refunds/purchase-revocation.js';
import { writeOffCommand } from '../src/refunds/refund.command.js';
import { DueRefundRepository } from '../src/refunds/refund.repository.js';
import { refundKey, RefundService } from '../src/refunds/refund.service.js';
import { RefundWriteOffRepository } from '../src/refunds/write-off.repository.js';
import { BLANK_TRANSACTION, TransactionRepository } from '../src/transactions/transaction.repository.js';
import type { PurchaseRecord, TransactionRecord } from '../src/transactions/transaction.schema.js';

/**
 * Billing's own refunds (docs/adr/0201) over FerretDB, NATS and localstripe: a refund owed while
 * the provider is unreachable (a provider address where nothing listens) is kept, a crash between
 * the provider's refund and our record is survived, and every attempt uses the line's one key,
 * so the provider holds one refund of the line's exact amount.
 */
describe('owed refunds', () => {
  const RESOURCE = 4343;
  let infra: TestInfra;
  let runtime: ServiceRuntime;
  let sdk: Stripe;
  let up: CardProvider;
  let down: CardProvider;
  let crashes = 0;
  /** No item type to take back here (no catalog or community): the e2e refund tests take lines back. */
  const revocationOf = (transactions: TransactionRepository) =>
    new PurchaseRevocation({ transactions, fulfilments: new FulfilmentRegistry([]), refundKeyOf: refundKey, logger: runtime.logger });

  beforeAll(async () => {
    const localStripe = inject('localStripeUrl');
    if (!localStripe) throw new Error('localstripe did not start; see the warning at the start of the run');
    infra = await testInfra();
    const config = (env: Record<string, string>) =>
      loadBillingConfig({
        MASTHEAD_ENV: 'test',
        MONGO_URL: infra.mongoUrl,
        MONGO_DB_PREFIX: `t${randomBytes(4).toString('hex')}_`,
        NATS_URL: infra.natsUrl,
        LOG_LEVEL: 'silent',
        METRICS_PORT: '0',
        ...env,
      });
    runtime = await openServiceRuntime('billing', config({}));
    sdk = cardProviderClient(config({ CARDPROVIDER_API_BASE: localStripe }), FAKE_PROVIDER_KEY);
    up = new StripeCardProvider(config({ CARDPROVIDER_API_BASE: localStripe }), FAKE_PROVIDER_KEY);
    const nowhere = `http://127.0.0.1:${await freePort()}`;
    down = new StripeCardProvider(config({ CARDPROVIDER_API_BASE: nowhere, CARDPROVIDER_TIMEOUT_MS: '1000' }), FAKE_PROVIDER_KEY);
  });
  afterAll(async () => {
    await runtime?.events.stop();
    await (await runtime?.nats)?.close();
    await runtime?.db.close();
    await infra?.stop();
  });

  /** A cart paid on the provider: a granted 50.00 membership and a 25.00 ticket line never granted. */
  async function paidCart(): Promise<TransactionRecord> {
    const customer = await sdk.customers.create({ email: `member-${randomBytes(6).toString('hex')}@example.test` });
    const card = await sdk.paymentMethods.attach('pm_card_visa', { customer: customer.id });
    const intent = await sdk.paymentIntents.create({
      amount: 7500,
      currency: 'usd',
      customer: customer.id,
      payment_method: card.id,
      confirm: true,
      off_session: true,
    });
    const line = (id: number, itemType: string, amount: number, fulfilled: number | null): PurchaseRecord => ({
      id,
      item_type: itemType,
      item_id: id,
      item_key: String(id),
      title: itemType,
      price: amount,
      discount: 0,
      amount,
      currency: 'USD',
      promo_code: null,
      terms: {},
      fulfilled_id: fulfilled,
      unfulfilled: fulfilled === null ? 'ti_event_tickets_sold_out' : null,
    });
    const { record } = await new TransactionRepository(runtime.db).insertOnce({
      ...BLANK_TRANSACTION,
      resource_id: RESOURCE,
      user_id: 601,
      kind: 'checkout',
      status: 'succeeded',
      pay_system: 'cardprovider',
      mode: 'test',
      amount: 7500,
      currency: 'USD',
      purchases: [line(1, 'subscription', 5000, 77), line(2, 'ti_ticket', 2500, null)],
      customer_id: customer.id,
      payment_id: intent.id,
      charge_id: typeof intent.latest_charge === 'string' ? intent.latest_charge : (intent.latest_charge?.id ?? null),
      unique_key: `checkout:${RESOURCE}:601:key:${randomBytes(6).toString('hex')}`,
      member_email: 'member@example.test',
      member_name: 'Ada',
      resource_title: 'Resource',
    });
    return record;
  }

  it('keeps a refund the provider cannot make now, and makes it once, under the line’s key, whoever retries', async () => {
    let provider = down;
    let clock = Date.now();
    const ledger = new ProviderWriteLedger(runtime.db, {
      staleAfterMs: 60_000,
      waitMs: 1000,
      afterProviderWrite: async () => {
        if (crashes > 0) {
          crashes--;
          throw new Error('simulated crash between the provider refund and its record');
        }
      },
    });
    const dues = new DueRefundRepository(runtime.db);
    await dues.ready();
    const transactions = new TransactionRepository(runtime.db);
    const refunds = new RefundService({
      transactions,
      dues,
      writeOffs: new RefundWriteOffRepository(runtime.db),
      providers: { for: async () => provider },
      ledger,
      revocation: revocationOf(transactions),
      events: runtime.events,
      logger: runtime.logger,
      batch: 100,
      now: () => new Date(clock),
    });
    const paid = await paidCart();
    const key = refundKey(paid, 1);
    expect(key).toBe(`masthead:${RESOURCE}:601:refund:${paid._id}:1:v1`);
    const providerRefunds = async () => (await sdk.refunds.list({ charge: paid.charge_id!, limit: 100 })).data;

    // The provider is unreachable: the refund is owed, nothing is refunded, the caller goes on.
    await refunds.owe(paid, 1);
    await refunds.owe(paid, 1);
    expect(await refunds.settleOwed(paid)).toMatchObject({ status: 'succeeded', amount_refunded: 0, refunds: [] });
    expect(await dues.of(paid._id)).toEqual([
      {
        _id: key,
        transaction_id: paid._id,
        line: 1,
        amount: 2500,
        created_at: expect.any(Date),
        attempts: 1,
        next_attempt_at: new Date(clock + 60_000),
        last_error: expect.any(String),
      },
    ]);
    expect(await providerRefunds()).toEqual([]);
    // A pass leaves it alone until its backoff is over (ADR 0221).
    provider = up;
    expect(await refunds.runOwed()).toBe(0);
    expect(await providerRefunds()).toEqual([]);

    // Back, but the process dies after the provider refunded and before it recorded that.
    clock += 60_000;
    crashes = 1;
    expect(await refunds.runOwed()).toBe(0);
    expect(await dues.of(paid._id)).toEqual([expect.objectContaining({ attempts: 2, next_attempt_at: new Date(clock + 120_000) })]);
    clock += 120_000;
    expect((await providerRefunds()).map((refund) => [refund.amount, refund.metadata?.['masthead_key']])).toEqual([[2500, key]]);
    expect(await dues.of(paid._id)).toHaveLength(1);

    // The next pass finds that refund by its key instead of making a second one, and mirrors it.
    expect(await refunds.runOwed()).toBe(1);
    const [refund] = await providerRefunds();
    expect(await providerRefunds()).toHaveLength(1);
    expect(await runtime.db.collection('provider_writes').findOne({ _id: key as never })).toMatchObject({ object_id: refund!.id });
    expect(await transactions.findById(paid._id)).toMatchObject({
      status: 'succeeded',
      amount_refunded: 2500,
      refunds: [{ id: refund!.id, amount: 2500, reason: null, created_at: expect.any(Date) }],
    });
    expect(await dues.of(paid._id)).toEqual([]);

    // Owed again (a completion that crashed before marking its line): the same key, no second refund.
    await refunds.owe(paid, 1);
    await refunds.settleOwed(paid);
    expect(await providerRefunds()).toHaveLength(1);
    expect(await dues.of(paid._id)).toEqual([]);
    // A line that cost nothing owes nothing.
    await refunds.owe({ ...paid, purchases: paid.purchases.map((purchase) => ({ ...purchase, amount: 0 })) }, 0);
    expect(await dues.of(paid._id)).toEqual([]);
  });

  /**
   * Refunds on the reachable provider (or `provider()`), without crashes; each call is one more
   * billing replica over the same database.
   */
  const refundsOnTheProvider = (options: { batch: number; now?: () => Date; waitMs?: number; provider?: () => CardProvider }) => {
    const { waitMs = 1000, provider = () => up, ...rest } = options;
    const dues = new DueRefundRepository(runtime.db);
    const writeOffs = new RefundWriteOffRepository(runtime.db);
    const transactions = new TransactionRepository(runtime.db);
    const refunds = new RefundService({
      transactions,
      dues,
      writeOffs,
      providers: { for: async () => provider() },
      ledger: new ProviderWriteLedger(runtime.db, { staleAfterMs: 60_000, waitMs }),
      revocation: revocationOf(transactions),
      events: runtime.events,
      logger: runtime.logger,
      ...rest,
    });
    return { dues, writeOffs, transactions, refunds };
  };
  const refundsOf = async (paid: TransactionRecord) => (await sdk.refunds.list({ charge: paid.charge_id!, limit: 100 })).data;

  it('backs off a refund the provider refuses, so that it does not hold up the ones after it', async () => {
    const clock = Date.now();
    const { dues, transactions, refunds } = refundsOnTheProvider({ batch: 1, now: () => new Date(clock) });
    // The older refund's payment is unknown to the provider: it refuses the refund every time.
    const refused = await paidCart();
    await runtime.db
      .collection('transactions')
      .updateOne({ _id: refused._id as never }, { $set: { payment_id: 'pi_unknown_to_the_provider' } });
    await refunds.owe({ ...refused, payment_id: 'pi_unknown_to_the_provider' }, 1);
    const later = await paidCart();
    await refunds.owe(later, 1);

    expect(await refunds.runOwed()).toBe(0);
    expect(await dues.of(refused._id)).toEqual([
      expect.objectContaining({ attempts: 1, next_attempt_at: new Date(clock + 60_000), last_error: expect.stringMatching(/^refused /) }),
    ]);
    // One refund per pass: the next pass takes the later one, the refused one waits its turn.
    expect(await refunds.runOwed()).toBe(1);
    expect(await dues.of(later._id)).toEqual([]);
    expect(await transactions.findById(later._id)).toMatchObject({ amount_refunded: 2500 });
    expect(await dues.of(refused._id)).toEqual([expect.objectContaining({ attempts: 1 })]);

    // An operator's retry ignores the backoff: a refused one counts one more failure, a makeable one is made.
    expect(await refunds.retryOwed(refundKey(refused, 1))).toEqual({
      made: false,
      due: expect.objectContaining({ attempts: 2, next_attempt_at: new Date(clock + 120_000) }),
    });
    const third = await paidCart();
    await refunds.owe(third, 1);
    expect(await refunds.retryOwed(refundKey(third, 1))).toEqual({ made: true });
    expect(await transactions.findById(third._id)).toMatchObject({ amount_refunded: 2500 });
    await expect(refunds.retryOwed('masthead:no-such-refund')).rejects.toMatchObject({ code: 'owed_refund_not_found' });
  });

  it('owes nothing more once the whole charge was refunded on the provider by hand', async () => {
    const { dues, transactions, refunds } = refundsOnTheProvider({ batch: 10 });
    /** A paid cart whose membership line granted nothing: a full refund ends nothing (no catalog here). */
    const cartGrantingNothing = async () => {
      const cart = await paidCart();
      await runtime.db.collection('transactions').updateOne({ _id: cart._id as never }, { $set: { 'purchases.0.fulfilled_id': null } });
      return (await transactions.findById(cart._id))!;
    };
    const paid = await cartGrantingNothing();
    // An operator refunded the whole payment on the provider's dashboard: no key of ours on it.
    await sdk.refunds.create({ payment_intent: paid.payment_id! });
    await refunds.owe(paid, 1);
    const settled = await refunds.settleOwed(paid);
    expect(await dues.of(paid._id)).toEqual([]);
    expect(settled).toMatchObject({ status: 'refunded', amount_refunded: 7500 });
    expect((await sdk.refunds.list({ charge: paid.charge_id!, limit: 100 })).data).toHaveLength(1);

    // Refunded in part by hand: the line's refund is capped at what the payment has left.
    const partly = await cartGrantingNothing();
    await sdk.refunds.create({ payment_intent: partly.payment_id!, amount: 6000 });
    await refunds.owe(partly, 1);
    expect(await refunds.settleOwed(partly)).toMatchObject({ amount_refunded: 7500 });
    expect((await sdk.refunds.list({ charge: partly.charge_id!, limit: 100 })).data.map((refund) => refund.amount).sort()).toEqual([
      1500, 6000,
    ]);
    expect(await dues.of(partly._id)).toEqual([]);
  });

  describe('write-offs (docs/adr/0223)', () => {
    const REASON = 'paid back by bank transfer, ticket 4711';
    const after = <T>(ms: number, run: () => Promise<T>): Promise<T> => new Promise((resolve) => setTimeout(resolve, ms)).then(run);

    it('writes off a refund owed while the provider is down: it leaves the list and is never made', async () => {
      let provider = down;
      const clock = Date.now();
      const { dues, writeOffs, transactions, refunds } = refundsOnTheProvider({
        batch: 100,
        now: () => new Date(clock),
        provider: () => provider,
      });
      const paid = await paidCart();
      const key = refundKey(paid, 1);
      await refunds.owe(paid, 1);
      await refunds.settleOwed(paid);
      expect(await refunds.listOwed(1000)).toContainEqual(expect.objectContaining({ _id: key, attempts: 1 }));

      // The provider cannot be asked whether an earlier attempt made it after all: written off, said so.
      const writeOff = {
        _id: key,
        transaction_id: paid._id,
        line: 1,
        amount: 2500,
        reason: REASON,
        written_off_at: new Date(clock),
        provider_checked: false,
      };
      expect(await refunds.writeOff({ key, reason: REASON })).toEqual(writeOff);
      expect(await writeOffs.find(key)).toEqual(writeOff);
      expect(await dues.of(paid._id)).toEqual([]);
      expect((await refunds.listOwed(1000)).map((due) => due._id)).not.toContain(key);

      // The provider is back: no pass, retry or completion ever makes it.
      provider = up;
      const pass = refundsOnTheProvider({ batch: 100, now: () => new Date(clock + 7 * 60 * 60_000) });
      await pass.refunds.runOwed();
      await expect(refunds.retryOwed(key)).rejects.toMatchObject({ status: 409, code: 'owed_refund_written_off' });
      // A repeated completion of the checkout owes the line again: it is dropped, not made.
      await refunds.owe(paid, 1);
      expect(await refunds.settleOwed(paid)).toMatchObject({ amount_refunded: 0, refunds: [] });
      expect(await dues.of(paid._id)).toEqual([]);
      expect(await refundsOf(paid)).toEqual([]);
      expect(await transactions.findById(paid._id)).toMatchObject({ status: 'succeeded', amount_refunded: 0, refunds: [] });

      // A repeat answers the recorded write-off: the first reason stands.
      expect(await refunds.writeOff({ key, reason: 'again' })).toEqual(writeOff);
    });

    it('answers 404 for an unknown key, 400 for a blank or long reason', async () => {
      const { refunds } = refundsOnTheProvider({ batch: 100 });
      await expect(refunds.writeOff({ key: 'masthead:1:2:refund:999999:0:v1', reason: REASON })).rejects.toMatchObject({
        status: 404,
        code: 'owed_refund_not_found',
      });
      // A key of another provider write (a customer) is no refund either.
      await expect(refunds.writeOff({ key: 'masthead:1:2:customer:test:v1', reason: REASON })).rejects.toMatchObject({
        status: 404,
        code: 'owed_refund_not_found',
      });
      expect(() => parseOrThrow(writeOffCommand, { key: 'k', reason: '   ' })).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_reason' }),
      );
      expect(() => parseOrThrow(writeOffCommand, { key: 'k', reason: 'x'.repeat(501) })).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_reason' }),
      );
      expect(() => parseOrThrow(writeOffCommand, { key: '', reason: REASON })).toThrow(
        expect.objectContaining({ status: 400, code: 'invalid_key' }),
      );
      expect(parseOrThrow(writeOffCommand, { key: ' k ', reason: ` ${'x'.repeat(500)} ` })).toEqual({ key: 'k', reason: 'x'.repeat(500) });
    });

    it('refuses while the refund is being made, and once it was made', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      // The reachable provider, slow to refund: the attempt holds the refund's claim meanwhile.
      const slow: CardProvider = Object.assign(Object.create(up) as CardProvider, {
        createRefund: async (...args: Parameters<CardProvider['createRefund']>) => {
          await gate;
          return up.createRefund(...args);
        },
      });
      const attempt = refundsOnTheProvider({ batch: 100, provider: () => slow, waitMs: 10_000 });
      const operator = refundsOnTheProvider({ batch: 100, waitMs: 300 });
      const paid = await paidCart();
      const key = refundKey(paid, 1);
      await attempt.refunds.owe(paid, 1);
      const retried = attempt.refunds.retryOwed(key);
      await expect.poll(() => runtime.db.collection('provider_writes').findOne({ _id: key as never }), { timeout: 10_000 }).not.toBeNull();

      await expect(operator.refunds.writeOff({ key, reason: REASON })).rejects.toMatchObject({
        status: 409,
        code: 'owed_refund_in_progress',
      });
      release();
      expect(await retried).toEqual({ made: true });
      await expect(operator.refunds.writeOff({ key, reason: REASON })).rejects.toMatchObject({
        status: 409,
        code: 'owed_refund_already_made',
      });
      expect((await refundsOf(paid)).map((refund) => [refund.amount, refund.metadata?.['masthead_key']])).toEqual([[2500, key]]);
      expect(await operator.writeOffs.find(key)).toBeNull();
    });

    it('a write-off that died after its claim keeps the refund from being made; repeating it finishes', async () => {
      const clock = Date.now();
      const { dues, refunds } = refundsOnTheProvider({ batch: 100, now: () => new Date(clock) });
      const paid = await paidCart();
      const key = refundKey(paid, 1);
      await refunds.owe(paid, 1);
      // What a write-off leaves when it dies between its claim and its record.
      await runtime.db
        .collection('provider_writes')
        .insertOne({ _id: key as never, token: 'dead-write-off', object_id: null, created_at: new Date(0), called_off: true });

      await expect(refunds.retryOwed(key)).rejects.toMatchObject({ status: 409, code: 'owed_refund_written_off' });
      await refunds.settleOwed(paid);
      // Still listed, saying why, until the operator repeats the write-off; never made.
      expect(await dues.of(paid._id)).toEqual([
        expect.objectContaining({
          attempts: 2,
          last_error: 'owed_refund_written_off: The refund was written off by an operator; it is not made',
        }),
      ]);
      expect(await refundsOf(paid)).toEqual([]);
      expect(await refunds.writeOff({ key, reason: REASON })).toMatchObject({ _id: key, reason: REASON, provider_checked: false });
      expect(await dues.of(paid._id)).toEqual([]);
      expect(await refundsOf(paid)).toEqual([]);
    });

    it('a write-off racing an attempt ends in exactly one of them, round after round', async () => {
      const ROUNDS = 9;
      const outcomes: string[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Two replicas: one attempts (an operator's retry, or the pass), the other writes off.
        const replica = refundsOnTheProvider({ batch: 100, waitMs: 10_000, now: () => new Date(0) });
        const operator = refundsOnTheProvider({ batch: 100, waitMs: 10_000 });
        const paid = await paidCart();
        const key = refundKey(paid, 1);
        await replica.refunds.owe(paid, 1);
        const viaPass = round % 2 === 1;
        // The attempt reads more before it claims: starting it a little earlier in some rounds
        // lets either side claim first.
        const head = (round % 3) * 4;
        const [attempted, writtenOff] = await Promise.allSettled([
          viaPass ? replica.refunds.runOwed() : replica.refunds.retryOwed(key),
          after(head, () => operator.refunds.writeOff({ key, reason: REASON })),
        ]);
        const made = await refundsOf(paid);
        expect(await replica.dues.of(paid._id)).toEqual([]);
        if (writtenOff.status === 'fulfilled') {
          outcomes.push('written off');
          expect(made).toEqual([]);
          expect(await operator.writeOffs.find(key)).toMatchObject({ _id: key, reason: REASON, provider_checked: true });
          expect(await replica.transactions.findById(paid._id)).toMatchObject({ amount_refunded: 0 });
          if (viaPass) expect(attempted).toMatchObject({ status: 'fulfilled', value: 0 });
          else expect(attempted).toMatchObject({ status: 'rejected', reason: { code: 'owed_refund_written_off' } });
        } else {
          outcomes.push('made');
          expect(writtenOff.reason).toMatchObject({ status: 409, code: 'owed_refund_already_made' });
          expect(made.map((refund) => [refund.amount, refund.metadata?.['masthead_key']])).toEqual([[2500, key]]);
          expect(await operator.writeOffs.find(key)).toBeNull();
          expect(await replica.transactions.findById(paid._id)).toMatchObject({ amount_refunded: 2500 });
          expect(attempted).toEqual({ status: 'fulfilled', value: viaPass ? 1 : { made: true } });
        }
      }
      expect(outcomes).toHaveLength(ROUNDS);
    });
  });
});
