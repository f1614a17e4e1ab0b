import { randomBytes } from 'node:crypto';
import { openServiceRuntime, type ServiceRuntime } from '@masthead/core/service';
import { testInfra, type TestInfra } from '@masthead/service-testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { claimHolders } from '../src/checkout/claim-holder.js';
import { loadBillingConfig } from '../src/config.js';
import { AbandonedUses, type AbandonedUsesDeps } from '../src/promos/abandoned-uses.js';
import { PromoRepository } from '../src/promos/promo.repository.js';
import { PromoService } from '../src/promos/promo.service.js';
import type { PromoCodeRecord } from '../src/promos/promo.schema.js';
import { BLANK_TRANSACTION, TransactionRepository } from '../src/transactions/transaction.repository.js';

const LEASE_MS = 60_000;

/**
 * A limited promo code's uses hold also against a checkout that was only slow (docs/adr/0235):
 * the abandoned-use sweep (ADR 0220) gives back a use whose checkout has no transaction after the
 * lease, and a checkout that records its transaction then keeps its use — exactly one of the two
 * wins, so a code of one use is never used twice. Over FerretDB, with billing's own repositories.
 */
describe('promo uses of slow checkouts', () => {
  const RESOURCE = 5151;
  let infra: TestInfra;
  let runtime: ServiceRuntime;
  let promos: PromoRepository;
  let transactions: TransactionRepository;

  beforeAll(async () => {
    infra = await testInfra();
    const config = loadBillingConfig({
      MASTHEAD_ENV: 'test',
      MONGO_URL: infra.mongoUrl,
      MONGO_DB_PREFIX: `t${randomBytes(4).toString('hex')}_`,
      NATS_URL: infra.natsUrl,
      LOG_LEVEL: 'silent',
      METRICS_PORT: '0',
    });
    runtime = await openServiceRuntime('billing', config);
    promos = new PromoRepository(runtime.db);
    transactions = new TransactionRepository(runtime.db);
    await Promise.all([promos.ready(), transactions.ready()]);
  });
  afterAll(async () => {
    await runtime?.events.stop();
    await (await runtime?.nats)?.close();
    await runtime?.db.close();
    await infra?.stop();
  });

  /** A code of one use, and the promo service as billing wires it, whose sweep reads where checkouts stand through `holderState`. */
  async function oneUseCode(holderState?: AbandonedUsesDeps['holderState']) {
    const promo = await promos.insert({
      resource_id: RESOURCE,
      code: `ONCE-${randomBytes(4).toString('hex')}`,
      discount_type: 'percent',
      discount_value: 50,
      currency: null,
      max_uses: 1,
      valid_from: null,
      valid_until: null,
      pricing_ids: [],
      active: true,
    });
    const holderOf = claimHolders(transactions, () => new Date(), LEASE_MS);
    const abandoned = new AbandonedUses({
      promos,
      holderState: holderState ?? (async (claimKey, claimedAt) => (await holderOf(claimKey, claimedAt)).state),
      intervalMs: 0,
    });
    return { promo, service: new PromoService({ promos, abandoned }), holderOf };
  }
  const claimKey = () => `checkout:${RESOURCE}:1:key:${randomBytes(6).toString('hex')}`;
  /** The claim is older than the lease: its checkout looks dead. */
  const age = (promo: PromoCodeRecord, key: string) =>
    runtime.db
      .collection('promo_redemptions')
      .updateOne({ promo_id: promo._id, claim_key: key }, { $set: { created_at: new Date(Date.now() - 2 * LEASE_MS) } });
  /** The checkout records its transaction, as CheckoutService.pay does after its claims. */
  const record = (key: string) =>
    transactions.insertOnce({
      ...BLANK_TRANSACTION,
      resource_id: RESOURCE,
      user_id: 1,
      kind: 'checkout',
      status: 'pending',
      pay_system: 'cardprovider',
      mode: 'test',
      amount: 500,
      currency: 'USD',
      purchases: [],
      unique_key: key,
      member_email: 'member@example.test',
      member_name: '',
      resource_title: '',
    });
  const uses = (promo: PromoCodeRecord) => runtime.db.collection('promo_redemptions').find({ promo_id: promo._id }).toArray();

  it('a slow checkout whose use went to another buyer cannot keep it: the code is used once', async () => {
    const { promo, service } = await oneUseCode();
    const slow = claimKey();
    await service.claim([promo], slow);
    await age(promo, slow);
    // Another buyer finds the code used up; the sweep gives the slow checkout's use back.
    const other = claimKey();
    await service.claim([promo], other);
    expect((await uses(promo)).map((use) => use['claim_key'])).toEqual([other]);
    // The slow checkout records its transaction at last: it may not go on with the discount.
    await record(slow);
    expect(await service.keep([promo], slow)).toBe(false);
    expect((await uses(promo)).map((use) => use['claim_key'])).toEqual([other]);
  });

  it('a checkout that records while the sweep is deciding keeps its use: the sweep does not give it to another', async () => {
    const slow = claimKey();
    let kept: boolean | undefined;
    // The sweep read the checkout without a transaction; before it acts, the checkout records and keeps.
    const { promo, service } = await oneUseCode(async () => {
      await record(slow);
      kept = await service.keep([promo], slow);
      return 'abandoned';
    });
    await service.claim([promo], slow);
    await age(promo, slow);
    await expect(service.claim([promo], claimKey())).rejects.toMatchObject({ code: 'invalid_promo' });
    expect(kept).toBe(true);
    expect(await uses(promo)).toEqual([expect.objectContaining({ claim_key: slow, confirmed: true })]);
  });
});
