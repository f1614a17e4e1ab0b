import { invalidFilter } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { TransactionServiceService, Viewer as ViewerMessage } from '@masthead/proto/billing/transactions';
import type { ResourceTransactionsReader } from '../member-views/resource-transactions.reader.js';
import type { TransactionService, Viewer } from '../transactions/transaction.service.js';
import { toResourceSummary, toTransaction } from './transactions.wire.js';

const viewerOf = (viewer: ViewerMessage | undefined): Viewer => ({
  resourceId: viewer?.resourceId ?? 0,
  userId: viewer?.userId ?? 0,
  admin: viewer?.admin ?? false,
  root: viewer?.root ?? false,
});

const parseFilter = (json: string): unknown => {
  if (!json) return undefined;
  try {
    return JSON.parse(json) as unknown;
  } catch {
    throw invalidFilter();
  }
};

export function transactionHandlers(
  transactions: TransactionService,
  byResource: ResourceTransactionsReader,
): AsyncImplementation<typeof TransactionServiceService> {
  return {
    listTransactions: async ({ viewer, query, filterJson }) => {
      const page = await transactions.list(viewerOf(viewer), fromPageQuery(query), parseFilter(filterJson));
      return { items: page.items.map(toTransaction), paginator: page.paginator };
    },
    getTransaction: async ({ viewer, id }) => toTransaction(await transactions.get(viewerOf(viewer), id)),
    renderInvoice: async ({ viewer, id }) => transactions.invoice(viewerOf(viewer), id),
    requestReceipt: async ({ viewer, id }) => toTransaction(await transactions.requestReceipt(viewerOf(viewer), id)),
    renderReceipt: async ({ viewer, id }) => transactions.receipt(viewerOf(viewer), id),
    listResourcesWithTransactions: async ({ userId, query }) => {
      const page = await byResource.resourcesWithTransactions(userId, fromPageQuery(query));
      return { items: page.items.map(toResourceSummary), paginator: page.paginator };
    },
    listTransactionsByResource: async ({ userId, partnerId, query }) => {
      const page = await byResource.byResource(userId, partnerId, fromPageQuery(query));
      return {
        items: page.items.map(({ resource, transactions: rows }) => ({
          resource: toResourceSummary(resource),
          transactions: rows.map(toTransaction),
        })),
        paginator: page.paginator,
      };
    },
  };
}
