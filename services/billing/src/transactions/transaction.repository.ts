import { allocateId, insertIfAbsent, insertWithNextId, isDuplicateKey, isStorableText, settleIdClash } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';
import {
  transactionModel,
  type PurchaseRecord,
  type ReceiptRecord,
  type RefundRecord,
  type TransactionRecord,
  type TransactionStatus,
} from './transaction.schema.js';

export type NewTransaction = Omit<TransactionRecord, '_id' | 'created_at' | 'updated_at'>;

/**
 * What a new transaction starts with unless its writer says otherwise: nothing refunded,
 * receipted, disputed or failed, no source and no provider objects yet.
 */
export const BLANK_TRANSACTION = {
  amount_refunded: 0,
  refunds: [],
  receipt: null,
  dispute: null,
  payment_method_id: null,
  user_card_id: null,
  card: null,
  source_ref: null,
  customer_id: null,
  payment_id: null,
  charge_id: null,
  error: null,
  error_message: null,
  fingerprint: '',
  external_id: null,
} as const satisfies Partial<NewTransaction>;

/** Transactions that no later event changes (a refund still may: see `refund`). */
export const SETTLED: readonly TransactionStatus[] = ['succeeded', 'failed', 'refunded'];

/** Purchase IDs are public integers of their own; each is claimed by a unique insert (ADR 0002). */
const purchaseIdSchema = new Schema<{ _id: number }>(
  { _id: { type: Number, required: true } },
  { collection: 'purchase_ids', versionKey: false },
);

export interface TransactionPage {
  rows: TransactionRecord[];
  total: number;
}

/** Storage of transactions. Member reads name the member and the resource; plain objects. */
export class TransactionRepository {
  private readonly model: Model<TransactionRecord>;
  private readonly purchaseIds: Model<{ _id: number }>;

  constructor(private readonly db: Connection) {
    this.model = transactionModel(db);
    this.purchaseIds = db.models['PurchaseId'] ?? db.model<{ _id: number }>('PurchaseId', purchaseIdSchema);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** A new purchase ID, distinct on FerretDB too (a lost counter update is settled and retried). */
  async nextPurchaseId(): Promise<number> {
    for (;;) {
      const id = await allocateId(this.db, this.purchaseIds);
      if (await insertIfAbsent(this.purchaseIds.create({ _id: id }))) return id;
      await settleIdClash(this.db, this.purchaseIds, id);
    }
  }

  /** Inserts, or returns the transaction a retry or concurrent request inserted with the same key. */
  async insertOnce(transaction: NewTransaction): Promise<{ record: TransactionRecord; created: boolean }> {
    const now = new Date();
    try {
      return { record: await insertWithNextId(this.db, this.model, { ...transaction, created_at: now, updated_at: now }), created: true };
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await this.findByKey(transaction.unique_key);
      if (!existing) throw error;
      return { record: existing, created: false };
    }
  }

  findByKey(uniqueKey: string): Promise<TransactionRecord | null> {
    return this.model.findOne({ unique_key: uniqueKey }).lean<TransactionRecord>().exec();
  }

  /**
   * The checkout of `userId` in which a purchase of `itemType` granted `grantedId` (a gift's
   * sponsorship). Found among the member's transactions of the resource (their index); the
   * purchase is matched here, as one query cannot tie two fields to one array element.
   */
  async findByGrant(
    resourceId: number,
    userId: number,
    itemType: string,
    grantedId: number,
  ): Promise<{ transaction: TransactionRecord; purchase: PurchaseRecord } | null> {
    const candidates = await this.model
      .find({ user_id: userId, resource_id: resourceId, kind: 'checkout', 'purchases.fulfilled_id': grantedId })
      .lean<TransactionRecord[]>()
      .exec();
    for (const transaction of candidates) {
      const purchase = transaction.purchases.find((row) => row.item_type === itemType && row.fulfilled_id === grantedId);
      if (purchase) return { transaction, purchase };
    }
    return null;
  }

  findById(id: number): Promise<TransactionRecord | null> {
    return this.model.findById(id).lean<TransactionRecord>().exec();
  }

  findByPayment(paymentId: string): Promise<TransactionRecord | null> {
    return this.model.findOne({ payment_id: paymentId }).lean<TransactionRecord>().exec();
  }

  findByCharge(chargeId: string): Promise<TransactionRecord | null> {
    return this.model.findOne({ charge_id: chargeId }).lean<TransactionRecord>().exec();
  }

  /** A store transaction ID with a NUL matches no stored one (isStorableText). */
  findExternal(resourceId: number, externalId: string): Promise<TransactionRecord | null> {
    if (!isStorableText(externalId)) return Promise.resolve(null);
    return this.model.findOne({ external_id: externalId, resource_id: resourceId }).lean<TransactionRecord>().exec();
  }

  /** One page of the member's transactions in the resource matching `conditions`, by ID (no sort override). */
  async listPage(
    resourceId: number,
    userId: number,
    conditions: Record<string, unknown>,
    page: { skip: number; limit: number },
  ): Promise<TransactionPage> {
    const filter = { $and: [conditions, { user_id: userId, resource_id: resourceId }] };
    const [rows, total] = await Promise.all([
      this.model.find(filter).sort({ _id: 1 }).skip(page.skip).limit(page.limit).lean<TransactionRecord[]>().exec(),
      this.model.countDocuments(filter).exec(),
    ]);
    return { rows, total };
  }

  /** The member's transactions in several resources (the grouped reads), by ID. */
  listAcross(resourceIds: number[], userId: number): Promise<TransactionRecord[]> {
    if (resourceIds.length === 0) return Promise.resolve([]);
    return this.model
      .find({ user_id: userId, resource_id: { $in: resourceIds } })
      .sort({ _id: 1 })
      .lean<TransactionRecord[]>()
      .exec();
  }

  /** The resources where the member has at least one transaction. */
  async resourcesOf(userId: number): Promise<number[]> {
    const ids = (await this.model.distinct('resource_id', { user_id: userId }).exec()) as number[];
    return ids.sort((a, b) => a - b);
  }

  /**
   * Moves the transaction to `status` with `fields` unless it is settled already (or in `to`):
   * the first outcome wins. On FerretDB the guard is read-then-write, so two writers of the same
   * outcome may both apply it; they write the same values. Null when it was settled.
   */
  settle(id: number, to: TransactionStatus, fields: Partial<TransactionRecord> = {}): Promise<TransactionRecord | null> {
    return this.model
      .findOneAndUpdate(
        { _id: id, status: { $nin: [...SETTLED] } },
        { $set: { ...fields, status: to, updated_at: new Date() } },
        { new: true },
      )
      .lean<TransactionRecord>()
      .exec();
  }

  /** Sets fields that do not change the status (provider IDs, a fulfilled purchase). */
  async update(id: number, fields: Record<string, unknown>): Promise<TransactionRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id }, { $set: { ...fields, updated_at: new Date() } }, { new: true })
      .lean<TransactionRecord>()
      .exec();
  }

  /** Marks one purchase fulfilled (idempotent: the same ID again changes nothing). */
  async markFulfilled(id: number, purchaseIndex: number, fulfilledId: number): Promise<void> {
    await this.model
      .updateOne({ _id: id }, { $set: { [`purchases.${purchaseIndex}.fulfilled_id`]: fulfilledId, updated_at: new Date() } })
      .exec();
  }

  /** What the purchase granted is to be taken back (docs/adr/0234); the first reason stays. */
  async markRevoking(id: number, purchaseIndex: number, reason: string): Promise<TransactionRecord | null> {
    await this.model
      .updateOne(
        { _id: id, [`purchases.${purchaseIndex}.revoked`]: null },
        { $set: { [`purchases.${purchaseIndex}.revoked`]: reason, updated_at: new Date() } },
      )
      .exec();
    return this.findById(id);
  }

  /** What the purchase granted was taken back. */
  async markRevoked(id: number, purchaseIndex: number): Promise<void> {
    await this.model
      .updateOne({ _id: id }, { $set: { [`purchases.${purchaseIndex}.revoked_at`]: new Date(), updated_at: new Date() } })
      .exec();
  }

  /** Marks one purchase as never to be granted (docs/adr/0201), unless it was granted meanwhile. */
  async markUnfulfilled(id: number, purchaseIndex: number, reason: string): Promise<void> {
    await this.model
      .updateOne(
        { _id: id, [`purchases.${purchaseIndex}.fulfilled_id`]: null },
        { $set: { [`purchases.${purchaseIndex}.unfulfilled`]: reason, updated_at: new Date() } },
      )
      .exec();
  }

  /** Sets the receipt unless one is set; null when another request set it first. */
  setReceiptOnce(id: number, receipt: ReceiptRecord): Promise<TransactionRecord | null> {
    return this.model
      .findOneAndUpdate({ _id: id, receipt: null }, { $set: { receipt, updated_at: new Date() } }, { new: true })
      .lean<TransactionRecord>()
      .exec();
  }

  /**
   * Records refunds as the provider reports them now: the refund list and the refunded amount
   * are replaced by the provider's current state (order-independent), and a full refund moves a
   * succeeded transaction to `refunded`.
   */
  setRefunds(id: number, refunds: RefundRecord[], amountRefunded: number, fullyRefunded: boolean): Promise<TransactionRecord | null> {
    const set: Record<string, unknown> = { refunds, amount_refunded: amountRefunded, updated_at: new Date() };
    if (fullyRefunded) set['status'] = 'refunded';
    return this.model
      .findOneAndUpdate({ _id: id, status: { $in: ['succeeded', 'refunded'] } }, { $set: set }, { new: true })
      .lean<TransactionRecord>()
      .exec();
  }
}
