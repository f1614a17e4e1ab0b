import { toPaginator, type PageRequest, type Paginator } from '@masthead/core/pagination';
import { renderDocument, type DocumentKind } from './invoice.pdf.js';
import { transactionNotExists } from '@masthead/core/errors';
import { receiptNotAvailable, receiptNotExists } from './transaction.errors.js';
import { transactionConditions } from './transaction.filter.js';
import type { TransactionRepository } from './transaction.repository.js';
import type { TransactionRecord } from './transaction.schema.js';

/** Who reads: the member, and whether they administer the header resource (or are root). */
export interface Viewer {
  resourceId: number;
  userId: number;
  /** Administrator of the header resource (admin or partner role there). */
  admin: boolean;
  root: boolean;
}

export interface TransactionPageView {
  items: TransactionRecord[];
  paginator: Paginator;
}

export interface RenderedDocument {
  filename: string;
  content: Buffer;
}

interface Deps {
  transactions: TransactionRepository;
}

/** A member's transactions and their documents (document 2 G; docs/adr/0141, 0143). */
export class TransactionService {
  constructor(private readonly deps: Deps) {}

  /** GET /user/transactions: the member's transactions in the header resource, by ID; 400 on a bad filter. */
  async list(viewer: Viewer, request: Pick<PageRequest, 'page' | 'limit'>, filter: unknown): Promise<TransactionPageView> {
    const conditions = transactionConditions(filter);
    const page = await this.deps.transactions.listPage(viewer.resourceId, viewer.userId, conditions, {
      skip: (request.page - 1) * request.limit,
      limit: request.limit,
    });
    return { items: page.rows, paginator: toPaginator(request, page.total) };
  }

  /**
   * One transaction: the owner's in any resource, or, for an administrator of the header
   * resource, any of that resource (root: any). Anything else is 404 transaction_not_exists.
   */
  async get(viewer: Viewer, id: number): Promise<TransactionRecord> {
    const transaction = id > 0 ? await this.deps.transactions.findById(id) : null;
    if (!transaction || !visibleTo(viewer, transaction)) throw transactionNotExists();
    return transaction;
  }

  /** GET …/download: the invoice, `Transaction_<id>.pdf`, the same bytes for the same transaction. */
  async invoice(viewer: Viewer, id: number): Promise<RenderedDocument> {
    return this.render(await this.get(viewer, id), 'invoice');
  }

  /**
   * POST …/receipt: records the transaction's receipt once (a second request answers the same
   * one). Only a transaction that took money has one: 409 receipt_not_available.
   */
  async requestReceipt(viewer: Viewer, id: number): Promise<TransactionRecord> {
    const transaction = await this.get(viewer, id);
    if (transaction.receipt) return transaction;
    if (transaction.status !== 'succeeded' && transaction.status !== 'refunded') throw receiptNotAvailable();
    const receipt = { number: `R-${transaction.resource_id}-${transaction._id}`, created_at: new Date() };
    return (await this.deps.transactions.setReceiptOnce(transaction._id, receipt)) ?? (await this.get(viewer, id));
  }

  /** GET …/receipt/download: 404 receipt_not_exists until one was requested. */
  async receipt(viewer: Viewer, id: number): Promise<RenderedDocument> {
    const transaction = await this.get(viewer, id);
    if (!transaction.receipt) throw receiptNotExists();
    return this.render(transaction, 'receipt');
  }

  private async render(transaction: TransactionRecord, kind: DocumentKind): Promise<RenderedDocument> {
    const prefix = kind === 'receipt' ? 'Receipt' : 'Transaction';
    return { filename: `${prefix}_${transaction._id}.pdf`, content: await renderDocument(transaction, kind) };
  }
}

const visibleTo = (viewer: Viewer, transaction: TransactionRecord): boolean =>
  transaction.user_id === viewer.userId || viewer.root || (viewer.admin && transaction.resource_id === viewer.resourceId);
