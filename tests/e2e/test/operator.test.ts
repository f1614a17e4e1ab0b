import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { createTenant } from '@masthead/testkit';
import { catalogKit } from './catalog-support.js';
import { eventually, useStack } from './support.js';

const run = promisify(execFile);
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

/** The operator path: the admin CLI over the internal APIs, and caches following its changes. */
describe('operator path', () => {
  const s = useStack();

  const cli = (...args: string[]) =>
    run(process.execPath, ['tools/admin/dist/cli.js', ...args], {
      cwd: repoRoot,
      env: { ...process.env, ...s.stack.env, MASTHEAD_ENV: 'development' },
    });

  it('loads the demo fixture through the CLI, twice, to the same state', async () => {
    await cli('load-fixture', 'fixtures/demo.json');
    const first = await s.api('/plans', { headers: { resource: 'demo-resource' }, query: 'page=1&limit=50' });
    const loaded = JSON.parse((await cli('load-fixture', 'fixtures/demo.json')).stdout) as {
      resources: Array<{ publicKey: string; id: number }>;
    };
    const demoResourceId = loaded.resources.find((resource) => resource.publicKey === 'demo-resource')!.id;
    const second = await s.api('/plans', { headers: { resource: 'demo-resource' }, query: 'page=1&limit=50' });
    expect(first.status).toBe(200);
    expect(second.body).toEqual(first.body);
    // The demo resource's test key (the local fake's) is stored sealed; the CLI shows only its end.
    const key = JSON.parse(
      (await cli('show-cardprovider-key', '--resource-id', String(demoResourceId), '--mode', 'test')).stdout,
    ) as Record<string, unknown>;
    expect(key).toEqual({
      resource_id: demoResourceId,
      mode: 'test',
      has_secret_key: true,
      secret_key_last4: 'head',
      key_id: 'dev',
      updated_at: expect.any(String),
      client_id: null,
      connected_account_id: null,
    });
    expect(JSON.stringify(key)).not.toContain('sk_test_masthead');
    // Four public active plans; the private ones (the team seat plan too) and the inactive plan are not listed.
    expect((first.body['items'] as Array<Record<string, unknown>>).map((plan) => plan['slug']).sort()).toEqual([
      'digital',
      'free',
      'print-and-digital',
      'team',
    ]);
    for (const plan of first.body['items'] as Array<{ subscriptions: Array<{ currency: string; period: string }> }>) {
      const currencies = new Set(plan.subscriptions.map((pricing) => pricing.currency));
      expect(plan.subscriptions.length).toBeGreaterThanOrEqual(2);
      expect(currencies.size).toBeGreaterThanOrEqual(2);
    }

    const signIn = await s.api('/authorization', {
      headers: { resource: 'demo-resource' },
      json: { email: 'member@demo.test', password: 'Demo-password-1' },
    });
    expect(signIn.status).toBe(200);
    expect((signIn.body['subscriptions'] as Array<Record<string, unknown>>).map((membership) => membership['title'])).toEqual([
      'Digital monthly',
    ]);

    // The team plan and its seat plan: hierarchy and seat limit come from the fixture.
    const plans = s.db('catalog').collection('plans');
    const team = await plans.findOne({ slug: 'team' });
    expect(team).toMatchObject({ can_own_teams: true, parent_plan_id: null });
    expect(await plans.findOne({ slug: 'team-seat' })).toMatchObject({ can_own_teams: false, parent_plan_id: team?._id, private: true });
    expect(await s.db('catalog').collection('pricings').findOne({ title: 'Team seat monthly' })).toMatchObject({ users_limit: 10 });
  });

  it('refuses a development-only fixture in production', async () => {
    const failure = await run(process.execPath, ['tools/admin/dist/cli.js', 'load-fixture', 'fixtures/demo.json'], {
      cwd: repoRoot,
      env: { ...process.env, ...s.stack.env, MASTHEAD_ENV: 'production' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('development_only') });
  });

  it('refuses a bad argument, naming it', async () => {
    const failure = await cli('create-plan', '--resource-id', 'x').catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('--resource-id must be an integer') });
  });

  it('refuses a fixture with an unknown key, naming it, before writing anything', async () => {
    const file = join(await mkdtemp(join(tmpdir(), 'fixture-')), 'typo.json');
    await writeFile(
      file,
      JSON.stringify({ partners: [{ title: 'Typo partner', resources: [{ public_key: 'typo-res', title: 'T', plnas: [] }] }] }),
    );
    const failure = await cli('load-fixture', file).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining('plnas') });
    expect((await s.api('/plans', { headers: { resource: 'typo-res' } })).status).toBe(404);
  });

  it('drops the gateway’s cached resource when the resource changes (resource_updated event)', async () => {
    // A miss is cached too; only the event can make the new resource visible before the TTL.
    const key = `late-${Date.now()}`;
    expect((await s.api('/plans', { headers: { resource: key } })).status).toBe(404);
    const partner = await s.stack.operator.accounts.createPartner({ title: 'Late partner' });
    await s.stack.operator.accounts.upsertResource({
      publicKey: key,
      title: 'Late',
      partnerId: partner.id,
      settings: {},
      allowedOrigins: [],
    });
    await eventually(async () => ((await s.api('/plans', { headers: { resource: key } })).status === 200 ? true : undefined), 5000);
  });

  it('creates free invitation codes for a Pricing (cap, window, email binding) that members activate', async () => {
    const kit = catalogKit(s);
    const tenant = await createTenant(s.stack);
    const plan = await kit.plan(tenant, 'comp', { title: 'Comp' });
    const free = await kit.pricing(plan.id, 'Comp free', { price: 0 });
    const paid = await kit.pricing(plan.id, 'Comp paid', { price: 900 });
    const create = async (...args: string[]) =>
      JSON.parse((await cli('create-invitation-code', '--resource-id', String(tenant.resourceId), ...args)).stdout) as Record<
        string,
        unknown
      >;

    const random = await create('--pricing-id', String(free.id), '--activations-limit', '1', '--end-date', '2999-01-01T00:00:00Z');
    expect(random).toMatchObject({ subscription_id: free.id, activations_limit: 1, email: null, end_date: '2999-01-01T00:00:00.000Z' });
    expect(random['code']).toMatch(/^[0-9a-f]{40}$/);
    expect((await create('--pricing-id', String(free.id)))['code']).not.toBe(random['code']);
    const member = await kit.signedInMember(tenant);
    const bound = await create('--pricing-id', String(free.id), '--code', 'Welcome-Comp-01', '--email', member.email.toUpperCase());
    expect(bound).toMatchObject({ code: 'Welcome-Comp-01', email: member.email, activations_limit: 0 });
    // Stored as the service stores codes: one row, looked up case-insensitively within the resource.
    expect(
      await s
        .db('community')
        .collection('invites')
        .findOne({ _id: bound['id'] as never }),
    ).toMatchObject({
      resource_id: tenant.resourceId,
      code_key: 'welcome-comp-01',
      pricing_id: free.id,
    });

    const headers = { resource: tenant.publicKey, token: member.token };
    for (const invite of [String(random['code']), 'welcome-comp-01']) {
      const response = await s.api('/invite-activation', { method: 'POST', headers, json: { invite } });
      expect(response.body).toEqual({ result: true, subscription_id: free.id });
    }
    const other = await kit.signedInMember(tenant);
    const usedUp = await s.api('/invite-activation', {
      method: 'POST',
      headers: { resource: tenant.publicKey, token: other.token },
      json: { invite: random['code'] },
    });
    expect(usedUp.status).toBe(422);

    // Refusals name what is wrong, and nothing is stored.
    const refusal = (...args: string[]) =>
      cli('create-invitation-code', '--resource-id', String(tenant.resourceId), ...args).catch(
        (error: { code: number; stderr: string }) => error,
      );
    for (const [args, text] of [
      [['--pricing-id', String(paid.id)], 'free Pricings only'],
      [['--pricing-id', String(free.id), '--code', 'welcome-COMP-01'], 'already has this code'],
      [['--pricing-id', String(free.id), '--end-date', 'tomorrow'], 'end_date'],
      [['--pricing-id', '999999'], 'Subscription not found'],
    ] as const) {
      const failure = await refusal(...args);
      expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining(text) });
    }
    expect(await refusal()).toMatchObject({ code: 2, stderr: expect.stringContaining('--pricing-id is required') });
    expect(await s.db('community').collection('invites').countDocuments({ resource_id: tenant.resourceId })).toBe(3);
  });

  it('creates, lists and switches promo codes for checkout (docs/adr/0144)', async () => {
    const tenant = await createTenant(s.stack);
    const resource = String(tenant.resourceId);
    const percent = JSON.parse(
      (await cli('create-promo', '--resource-id', resource, '--code', 'Spring', '--percent-off', '20', '--max-uses', '100')).stdout,
    ) as Record<string, unknown>;
    expect(percent).toEqual({
      id: expect.any(Number),
      resource_id: tenant.resourceId,
      code: 'Spring',
      discount_type: 'percent',
      discount_value: 20,
      currency: null,
      max_uses: 100,
      uses: 0,
      valid_from: null,
      valid_until: null,
      pricing_ids: [],
      active: true,
      created_at: expect.any(String),
    });
    const amount = JSON.parse(
      (
        await cli(
          'create-promo',
          '--resource-id',
          resource,
          '--code',
          'FIVE-OFF',
          '--amount-off',
          '500',
          '--currency',
          'usd',
          '--valid-until',
          '2099-01-01T00:00:00Z',
          '--for-pricing-id',
          '7',
          '--for-pricing-id',
          '8',
        )
      ).stdout,
    ) as Record<string, unknown>;
    expect(amount).toMatchObject({
      discount_type: 'amount',
      discount_value: 500,
      currency: 'USD',
      pricing_ids: [7, 8],
      valid_until: '2099-01-01T00:00:00.000Z',
    });
    const off = JSON.parse((await cli('set-promo-active', '--id', String(percent['id']), '--inactive')).stdout) as Record<string, unknown>;
    expect(off).toMatchObject({ code: 'Spring', active: false });
    const listed = JSON.parse((await cli('list-promos', '--resource-id', resource)).stdout) as Array<Record<string, unknown>>;
    expect(listed.map((promo) => [promo['code'], promo['active']])).toEqual([
      ['Spring', false],
      ['FIVE-OFF', true],
    ]);
    const refusal = (...args: string[]) => cli(...args).catch((error: { code: number; stderr: string }) => error);
    expect(await refusal('create-promo', '--resource-id', resource, '--code', 'spring', '--percent-off', '5')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('promo code of that name'),
    });
    expect(await refusal('create-promo', '--resource-id', resource, '--code', 'BIG', '--percent-off', '150')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('at most 100 percent'),
    });
    expect(await refusal('create-promo', '--resource-id', resource, '--code', 'BOTH')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--percent-off'),
    });
  });

  it('lists the refunds billing owes, retries one at once and writes one off (docs/adr/0221, 0223)', async () => {
    // A refund owed on a transaction that cannot be found: every attempt fails, and says why.
    const key = `masthead:1:1:refund:${900_000 + Math.floor(Math.random() * 99_999)}:0:v1`;
    const transactionId = Number(key.split(':')[4]);
    await s
      .db('billing')
      .collection('refunds_due')
      .insertOne({ _id: key as never, transaction_id: transactionId, line: 0, amount: 2500, created_at: new Date() });
    const listed = JSON.parse((await cli('list-owed-refunds', '--limit', '10')).stdout) as Array<Record<string, unknown>>;
    expect(listed).toContainEqual({
      key,
      transaction_id: transactionId,
      line: 0,
      amount: 2500,
      created_at: expect.any(String),
      attempts: 0,
      next_attempt_at: null,
      last_error: null,
    });
    const retried = JSON.parse((await cli('retry-owed-refund', '--key', key)).stdout) as Record<string, unknown>;
    expect(retried).toEqual({
      made: false,
      refund: expect.objectContaining({
        key,
        attempts: 1,
        next_attempt_at: expect.any(String),
        last_error: `transaction ${transactionId} of an owed refund is missing`,
      }),
    });
    const unknown = await cli('retry-owed-refund', '--key', 'masthead:no-such-refund').catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(unknown).toMatchObject({ code: 1, stderr: expect.stringContaining('owed_refund_not_found') });

    // Paid back by bank transfer: written off, it leaves the list and is never tried again (docs/adr/0223).
    const refused = (...args: string[]) => cli(...args).catch((error: { code: number; stderr: string }) => error);
    expect(await refused('write-off-owed-refund', '--key', key, '--reason', '  ')).toMatchObject({
      code: 2,
      stderr: expect.stringContaining('--reason is required'),
    });
    const writtenOff = JSON.parse(
      (await cli('write-off-owed-refund', '--key', key, '--reason', 'bank transfer 2024-05-02')).stdout,
    ) as Record<string, unknown>;
    expect(writtenOff).toEqual({
      key,
      transaction_id: transactionId,
      line: 0,
      amount: 2500,
      reason: 'bank transfer 2024-05-02',
      written_off_at: expect.any(String),
      provider_checked: true,
    });
    const after = JSON.parse((await cli('list-owed-refunds', '--limit', '1000')).stdout) as Array<Record<string, unknown>>;
    expect(after.map((refund) => refund['key'])).not.toContain(key);
    expect(await refused('retry-owed-refund', '--key', key)).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('owed_refund_written_off'),
    });
    expect(await refused('write-off-owed-refund', '--key', 'masthead:no-such-refund', '--reason', 'cash')).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('owed_refund_not_found'),
    });
  });
});
