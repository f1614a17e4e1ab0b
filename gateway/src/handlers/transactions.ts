import { invalidFilter, transactionNotExists } from '@masthead/core/errors';
import { parsePageRequest, toPageQuery } from '@masthead/core/pagination';
import type { Viewer } from '@masthead/proto/billing/transactions';
import { z } from 'zod';
import type { MemberScopeContext } from '../auth/context.js';
import { isAdminRole } from '../auth/roles.js';
import { parsedWith, pathId, raise } from '../http/request.js';
import type { Handler } from '../routes/define.js';
import { serializePaginator } from '../serializers/catalog.js';
import { serializeTransaction } from '../serializers/transactions.js';

/** Transactions and their documents (document 2 G; docs/adr/0141, 0143). */

/** The reader: the member, and whether they administer the header resource (root: any). */
const viewerOf = (context: MemberScopeContext): Viewer => ({
  resourceId: context.resource.id,
  userId: context.caller.user.id,
  admin: isAdminRole(context.caller.role),
  root: context.caller.role === 'root',
});

/**
 * `filter` as an object (a bracket map) or a JSON string, sent to billing as JSON, which judges
 * the fields (400 invalid_filter, invalid_filter_date, invalid_<field>). Text that is no JSON,
 * or a repeated `filter`, is 400 invalid_filter here.
 */
const filterJson = z.unknown().transform((value, ctx) => {
  if (value === undefined || value === '') return '';
  if (typeof value === 'string') {
    try {
      return JSON.stringify(JSON.parse(value));
    } catch {
      return raise(ctx, invalidFilter);
    }
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return JSON.stringify(value);
  return raise(ctx, invalidFilter);
});

/** Page and limit as every list reads them (409 for a bad one); no sort is read (document 2 G). */
export const listTransactionsRequest = z
  .object({ query: z.record(z.unknown()) })
  .transform(({ query }) => ({ page: query, filter: query['filter'] }))
  .pipe(
    z.object({
      page: z
        .record(z.unknown())
        .transform(({ page, limit }) => ({ page, limit }))
        .pipe(parsedWith(parsePageRequest)),
      filter: filterJson,
    }),
  );

/** GET /user/transactions: `{items, paginator}` of the member's transactions in the header resource. */
export const listTransactions: Handler<'member', z.output<typeof listTransactionsRequest>> = async (
  context,
  { page, filter },
  { transactions },
) => {
  const result = await transactions.listTransactions(
    { viewer: viewerOf(context), query: toPageQuery({ ...page, orderBy: '', sort: 'DESC' }), filterJson: filter },
    { idempotent: true },
  );
  return {
    body: {
      items: result.items.map((transaction) => serializeTransaction(transaction, context.caller.user.id)),
      paginator: serializePaginator(result.paginator),
    },
  };
};

/** `{id}`: a local transaction ID; anything else names none (404 transaction_not_exists). */
export const transactionRequest = z.object({ params: z.object({ id: pathId(transactionNotExists) }) }).transform(({ params }) => params.id);

type TransactionHandler = Handler<'member', z.output<typeof transactionRequest>>;

/** GET /user/transactions/{id}: the summary at top level (no wrapper). */
export const getTransaction: TransactionHandler = async (context, id, { transactions }) => {
  const transaction = await transactions.getTransaction({ viewer: viewerOf(context), id }, { idempotent: true });
  return { body: serializeTransaction(transaction, context.caller.user.id) };
};

/** GET /user/transactions/{id}/download: the invoice, `Transaction_<id>.pdf`. */
export const downloadInvoice: TransactionHandler = async (context, id, { transactions }) => {
  const document = await transactions.renderInvoice({ viewer: viewerOf(context), id }, { idempotent: true });
  return { download: { filename: document.filename, content: document.content } };
};

/** POST /user/transactions/{id}/receipt: `{receipt: {number, created_at, download_link}}` (docs/adr/0143). */
export const requestReceipt: TransactionHandler = async (context, id, { transactions }) => {
  const transaction = await transactions.requestReceipt({ viewer: viewerOf(context), id });
  const summary = serializeTransaction(transaction, context.caller.user.id);
  return { body: { receipt: summary['receipt'] } };
};

/** GET /user/transactions/{id}/receipt/download: the stored receipt, `Receipt_<id>.pdf`. */
export const downloadReceipt: TransactionHandler = async (context, id, { transactions }) => {
  const document = await transactions.renderReceipt({ viewer: viewerOf(context), id }, { idempotent: true });
  return { download: { filename: document.filename, content: document.content } };
};
