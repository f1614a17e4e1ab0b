import { toPageQuery } from '@masthead/core/pagination';
import type { TransactionsByResourceResponse } from '@masthead/proto/billing/transactions';
import type { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import type { ServiceClients } from '../clients.js';
import type { Handler } from '../routes/define.js';
import { serializePaginator } from '../serializers/catalog.js';
import { serializePurchase, serializeResourceItem, serializeTransaction } from '../serializers/transactions.js';
import type { pageAndFilterRequest } from './memberships.js';

/** Document 1 E's reads that billing owns (docs/adr/0141; billing's member-views/CONTEXT.md). */

type Page = z.output<typeof pageAndFilterRequest>;

/** GET /user/resources: `{items: [{title, key, host}], paginator}`; the header resource does not restrict it. */
export const listResources: Handler<'member', Page> = async (context, page, { transactions }) => {
  const result = await transactions.listResourcesWithTransactions(
    { userId: context.caller.user.id, query: toPageQuery(page) },
    { idempotent: true },
  );
  return { body: { items: result.items.map(serializeResourceItem), paginator: serializePaginator(result.paginator) } };
};

/**
 * The grouped reads: page and limit paginate the resources; `filter` is parsed and validated but
 * not applied; a page without resources is exactly `{items: [{resources: []}]}`.
 */
async function grouped(
  context: MemberScopeContext,
  page: Page,
  transactions: ServiceClients['transactions'],
  render: (item: TransactionsByResourceResponse['items'][number]) => Record<string, unknown>,
) {
  const result = await transactions.listTransactionsByResource(
    { userId: context.caller.user.id, partnerId: context.resource.partnerId, query: toPageQuery({ ...page, filter: {} }) },
    { idempotent: true },
  );
  if (result.items.length === 0) return { body: { items: [{ resources: [] }] } };
  return { body: { items: [{ resources: result.items.map(render) }], paginator: serializePaginator(result.paginator) } };
}

/** GET /user/resources/transactions: each resource with the member's transactions there. */
export const listResourceTransactions: Handler<'member', Page> = (context, page, { transactions }) =>
  grouped(context, page, transactions, ({ resource, transactions: rows }) => ({
    ...serializeResourceItem(resource!),
    transactions: rows.map((row) => serializeTransaction(row, context.caller.user.id)),
  }));

/** GET /user/resources/purchases: each resource with what the member bought there (transactions that took money). */
export const listResourcePurchases: Handler<'member', Page> = (context, page, { transactions }) =>
  grouped(context, page, transactions, ({ resource, transactions: rows }) => ({
    ...serializeResourceItem(resource!),
    purchases: rows
      .filter((row) => row.status === 'succeeded' || row.status === 'refunded')
      .flatMap((row) => row.purchases.map((purchase) => serializePurchase(purchase, row))),
  }));
