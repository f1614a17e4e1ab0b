import { invalidFilter } from '@masthead/core/errors';
import type { AsyncImplementation } from '@masthead/core/grpc';
import { fromPageQuery } from '@masthead/core/pagination';
import type { TransactionServiceService, Viewer as ViewerMessage } from '@masthead/proto/billing/transactions';
import type { TransactionRepository } from '../transactions/transaction.repository.js';
import type { TransactionService, Viewer } from '../transactions/transaction.service.js';
import { toTransaction } from './transactions.wire.js';

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
  rows: TransactionRepository,
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
    listTransactionsAcross: async ({ userId, resourceIds }) => ({ items: (await rows.listAcross(resourceIds, userId)).map(toTransaction) }),
    listTransactionResources: async ({ userId }) => ({ resourceIds: await rows.resourcesOf(userId) }),
  };
}
