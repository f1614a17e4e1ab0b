import { execFile } from 'node:child_process';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createMember, type Tenant } from '@masthead/testkit';
import { beforeAll, describe, expect, it } from 'vitest';
import { billingKit, CARDS } from './billing-support.js';
import type { Json } from './catalog-support.js';
import { anyIsoDate, anyRequestId, useStack } from './support.js';

const run = promisify(execFile);

/** The PDF's text, read back with poppler's pdftotext (docs/adr/0143). */
async function pdfText(bytes: Buffer): Promise<string> {
  const folder = await mkdtemp(join(tmpdir(), 'invoice-'));
  const file = join(folder, 'document.pdf');
  await writeFile(file, bytes);
  return (await run('pdftotext', ['-layout', file, '-'])).stdout;
}

/**
 * Transactions and invoices (document 2 G; docs/adr/0141, 0143) through the gateway: the list
 * and its filter, one transaction (owner, administrator, anyone else), the invoice PDF read back
 * with pdftotext, and the stored receipt with its download link.
 */
describe('transactions and invoices', () => {
  const s = useStack();
  const { shop, buyer, item, pay, kit } = billingKit(s);
  const error = (code: string) => ({ error: code, error_description: expect.any(String), req_guid: anyRequestId });

  let tenant: Tenant;
  let m: Awaited<ReturnType<typeof buyer>>;
  let paid: Json;
  let failed: Json;
  let pricingId: number;

  beforeAll(async () => {
    const arranged = await shop();
    tenant = arranged.tenant;
    pricingId = arranged.pricing.id;
    const yearly = await kit.pricing(arranged.plan.id, 'Yearly', { price: 9900, period: '1 year' });
    m = await buyer(tenant);
    paid = (await pay(m.headers, [item(pricingId)])).body['transaction'] as Json;
    // A declined card of the same member: a failed transaction.
    const declined = await (async () => {
      const card = await billingKit(s).provider.attachCard(m.customerId, CARDS.declined);
      const saved = await s.api('/user/payment-provider/cardprovider/save-intents', {
        method: 'POST',
        headers: m.headers,
        json: { setup_intent: { payment_method: card['id'] } },
      });
      return (saved.body['payment_method'] as Json)['id'] as number;
    })();
    expect((await pay(m.headers, [item(yearly.id, { payment_method_id: declined })])).status).toBe(409);
    const rows = await s.db('billing').collection('transactions').find({ user_id: m.member.id, status: 'failed' }).toArray();
    failed = { id: rows[0]!['_id'], payment_method_id: declined, pricing: yearly.id };
  });

  const list = (query: string, headers = m.headers) => s.api('/user/transactions', { headers, query });

  describe('GET /user/transactions', () => {
    it('lists the member’s transactions in the header resource, by ID, with the paginator', async () => {
      const response = await list('page=1');
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        items: [
          paid,
          {
            id: failed['id'],
            status: 'failed',
            amount: 9900,
            amount_refunded: 0,
            currency: 'USD',
            pay_system: 'cardprovider',
            purchases: [{ id: expect.any(Number), item_type: 'subscription', item_id: failed['pricing'], amount: 9900 }],
            receipt: null,
            refunds: [],
            payment_source: { source_type: 'payment-method', id: failed['payment_method_id'] },
            error: expect.any(String),
            created_at: anyIsoDate,
            card: { brand: 'visa', last4: '0341' },
          },
        ],
        paginator: { current_page: 1, page: 1, total_pages: 1, total_items: 2, limit: 10 },
      });
      // No sort override: order, by and sort change nothing.
      expect((await list('page=1&order=amount&sort=DESC')).body).toEqual(response.body);
      const second = await list('page=2&limit=1');
      expect((second.body['items'] as Json[]).map((row) => row['id'])).toEqual([failed['id']]);
    });

    it('filters over transaction fields, as an object or a JSON string', async () => {
      const ids = async (query: string) => ((await list(query)).body['items'] as Json[]).map((row) => row['id']);
      expect(await ids('filter[status]=failed')).toEqual([failed['id']]);
      expect(await ids(`filter=${encodeURIComponent(JSON.stringify({ amount: [999, 1] }))}`)).toEqual([paid['id']]);
      expect(await ids('filter[currency]=us&filter[Transactions.pay_system]=CARD')).toEqual([paid['id'], failed['id']]);
      const today = new Date().toISOString().slice(0, 10);
      expect(await ids(`filter[created_at]=${today}`)).toEqual([paid['id'], failed['id']]);
      expect(await ids(`filter[created_at][to]=2000-01-01`)).toEqual([]);
      expect(await ids(`filter[id]=${paid['id'] as number}`)).toEqual([paid['id']]);
    });

    it('answers 400 invalid_filter, invalid_filter_date and invalid_<field>', async () => {
      const cases: Array<[string, string]> = [
        ['filter=%7Bnot-json', 'invalid_filter'],
        ['filter=%5B1%5D', 'invalid_filter'],
        ['filter[nope]=1', 'invalid_filter'],
        ['filter[created_at]=yesterday', 'invalid_filter_date'],
        ['filter[created_at][since]=2024-01-01', 'invalid_filter_date'],
        ['filter[amount]=cheap', 'invalid_amount'],
        ['filter[status]=lost', 'invalid_status'],
      ];
      for (const [query, code] of cases) {
        const response = await list(query);
        expect([response.status, response.body, query]).toEqual([400, error(code), query]);
      }
    });

    it('is limited to the header resource and needs a member', async () => {
      const other = await shop();
      const elsewhere = await buyer(other.tenant);
      expect((await list('page=1', elsewhere.headers)).body).toEqual({
        items: [],
        paginator: { current_page: 1, page: 1, total_pages: 0, total_items: 0, limit: 10 },
      });
      const guest = await list('page=1', { resource: tenant.publicKey } as typeof m.headers);
      expect([guest.status, guest.body['error']]).toEqual([401, 'auth_failed']);
    });
  });

  describe('GET /user/transactions/{id}', () => {
    it('shows the owner the summary at top level', async () => {
      const response = await s.api(`/user/transactions/${paid['id'] as number}`, { headers: m.headers });
      expect([response.status, response.body]).toEqual([200, paid]);
    });

    it('shows an administrator of the resource any of its transactions, with its member', async () => {
      const admin = await createMember(s.stack, tenant, { role: 'admin' });
      const token = (await s.api('/authorization', { headers: { resource: tenant.publicKey }, json: admin })).body['token'] as string;
      const response = await s.api(`/user/transactions/${paid['id'] as number}`, { headers: { resource: tenant.publicKey, token } });
      expect([response.status, response.body]).toEqual([200, { ...paid, user: { id: m.member.id, email: m.member.email } }]);
    });

    it('answers 404 transaction_not_exists for another member’s, an unknown or a malformed ID', async () => {
      const stranger = await buyer(tenant);
      for (const id of [String(paid['id']), '999999', 'abc', '0']) {
        const response = await s.api(`/user/transactions/${id}`, { headers: stranger.headers });
        expect([response.status, response.body, id]).toEqual([404, error('transaction_not_exists'), id]);
      }
      // An administrator of another resource does not see it either.
      const other = await shop();
      const admin = await createMember(s.stack, other.tenant, { role: 'admin' });
      const token = (await s.api('/authorization', { headers: { resource: other.tenant.publicKey }, json: admin })).body['token'] as string;
      const foreign = await s.api(`/user/transactions/${paid['id'] as number}`, { headers: { resource: other.tenant.publicKey, token } });
      expect([foreign.status, foreign.body]).toEqual([404, error('transaction_not_exists')]);
    });

    it('shows the owner their transaction from another resource’s context', async () => {
      const other = await shop();
      await s.stack.operator.identity.upsertMember({
        resourceId: other.tenant.resourceId,
        email: m.member.email,
        password: m.member.password,
        role: 'user',
      });
      const signIn = await s.api('/authorization', { headers: { resource: other.tenant.publicKey }, json: m.member });
      const response = await s.api(`/user/transactions/${paid['id'] as number}`, {
        headers: { resource: other.tenant.publicKey, token: signIn.body['token'] as string },
      });
      expect([response.status, response.body]).toEqual([200, paid]);
    });
  });

  describe('GET /user/transactions/{id}/download', () => {
    const download = (id: unknown, headers = m.headers) =>
      fetch(`${s.stack.baseUrl}/user/transactions/${String(id)}/download`, { headers });

    it('streams the invoice PDF as a download, the same bytes each time, with amounts, currency, member and resource', async () => {
      const first = await download(paid['id']);
      expect(first.status).toBe(200);
      expect(first.headers.get('content-type')).toBe('application/force-download');
      expect(first.headers.get('content-disposition')).toBe(`attachment; filename="Transaction_${paid['id'] as number}.pdf"`);
      const bytes = Buffer.from(await first.arrayBuffer());
      expect(bytes.subarray(0, 5).toString()).toBe('%PDF-');
      const again = Buffer.from(await (await download(paid['id'])).arrayBuffer());
      expect(again.equals(bytes)).toBe(true);
      const text = await pdfText(bytes);
      expect(text).toContain(`Invoice for transaction ${paid['id'] as number}`);
      expect(text).toContain('Total: 9.99 USD');
      expect(text).toContain('Digital: Monthly: 9.99 USD');
      expect(text).toContain(m.member.email);
      const resource = await s.stack.operator.accounts.getResource({ id: tenant.resourceId });
      expect(text).toContain(resource.title);
      expect(text).toContain('visa ending 4242');
    });

    it('renders failed transactions too, and answers JSON 404 for what the caller may not see', async () => {
      expect((await download(failed['id'])).status).toBe(200);
      const stranger = await buyer(tenant);
      const hidden = await download(paid['id'], stranger.headers);
      expect(hidden.status).toBe(404);
      expect(hidden.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await hidden.json()).toEqual(error('transaction_not_exists'));
    });
  });

  describe('receipts (OPERATIONS.md 123–124)', () => {
    it('stores a receipt once; its download_link leads to the receipt PDF', async () => {
      const before = await fetch(`${s.stack.baseUrl}/user/transactions/${paid['id'] as number}/receipt/download`, { headers: m.headers });
      expect([before.status, await before.json()]).toEqual([404, error('receipt_not_exists')]);
      const requested = await s.api(`/user/transactions/${paid['id'] as number}/receipt`, { method: 'POST', headers: m.headers });
      expect(requested.status).toBe(200);
      const receipt = {
        number: `R-${tenant.resourceId}-${paid['id'] as number}`,
        created_at: anyIsoDate,
        download_link: `/api/v1/user/transactions/${paid['id'] as number}/receipt/download`,
      };
      expect(requested.body).toEqual({ receipt });
      const again = await s.api(`/user/transactions/${paid['id'] as number}/receipt`, { method: 'POST', headers: m.headers });
      expect(again.body).toEqual(requested.body);
      const summary = await s.api(`/user/transactions/${paid['id'] as number}`, { headers: m.headers });
      expect(summary.body['receipt']).toEqual(requested.body['receipt']);
      const link = (requested.body['receipt'] as Json)['download_link'] as string;
      const pdf = await fetch(`${s.stack.gatewayUrl}${link}`, { headers: m.headers });
      expect(pdf.status).toBe(200);
      expect(pdf.headers.get('content-disposition')).toBe(`attachment; filename="Receipt_${paid['id'] as number}.pdf"`);
      const text = await pdfText(Buffer.from(await pdf.arrayBuffer()));
      expect(text).toContain(`Receipt number: R-${tenant.resourceId}-${paid['id'] as number}`);
      expect(text).toContain('Total: 9.99 USD');
    });

    it('answers 409 receipt_not_available for a failed transaction and 404 for another member’s', async () => {
      const failedReceipt = await s.api(`/user/transactions/${failed['id'] as number}/receipt`, { method: 'POST', headers: m.headers });
      expect([failedReceipt.status, failedReceipt.body]).toEqual([409, error('receipt_not_available')]);
      const stranger = await buyer(tenant);
      const hidden = await s.api(`/user/transactions/${paid['id'] as number}/receipt`, { method: 'POST', headers: stranger.headers });
      expect([hidden.status, hidden.body]).toEqual([404, error('transaction_not_exists')]);
    });
  });
});
