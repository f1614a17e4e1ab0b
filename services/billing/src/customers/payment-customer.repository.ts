import { insertWithNextId, isDuplicateKey, isStorableText } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { paymentCustomerModel, type PaymentCustomerRecord } from './payment-customer.schema.js';

export type NewPaymentCustomer = Omit<PaymentCustomerRecord, '_id' | 'created_at'>;

/** Storage of payment customers. Every read names the member and the resource; plain objects. */
export class PaymentCustomerRepository {
  private readonly model: Model<PaymentCustomerRecord>;

  constructor(private readonly db: Connection) {
    this.model = paymentCustomerModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** The member's customers visible in the resource, of one pay system when given. */
  listVisible(resourceId: number, userId: number, paySystem?: string): Promise<PaymentCustomerRecord[]> {
    const filter: Record<string, unknown> = { user_id: userId, resource_ids: resourceId };
    if (paySystem !== undefined) filter['pay_system'] = paySystem;
    return this.model.find(filter).lean<PaymentCustomerRecord[]>().exec();
  }

  async existsVisible(resourceId: number, userId: number): Promise<boolean> {
    return (await this.model.exists({ user_id: userId, resource_ids: resourceId })) !== null;
  }

  /** A provider customer ID with a NUL (a member's input) matches no stored one (isStorableText). */
  findVisibleByProviderId(
    resourceId: number,
    userId: number,
    paySystem: string,
    customerId: string,
  ): Promise<PaymentCustomerRecord | null> {
    if (!isStorableText(customerId)) return Promise.resolve(null);
    return this.model
      .findOne({ user_id: userId, resource_ids: resourceId, pay_system: paySystem, customer_id: customerId })
      .lean<PaymentCustomerRecord>()
      .exec();
  }

  findByKey(customerKey: string): Promise<PaymentCustomerRecord | null> {
    return this.model.findOne({ customer_key: customerKey }).lean<PaymentCustomerRecord>().exec();
  }

  /** Inserts, or returns the record a concurrent caller inserted with the same key. */
  async insertOnce(customer: NewPaymentCustomer): Promise<PaymentCustomerRecord> {
    try {
      return await insertWithNextId(this.db, this.model, { ...customer, created_at: new Date() });
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await this.findByKey(customer.customer_key);
      if (!existing) throw error;
      return existing;
    }
  }

  /** One of the member's customers, wherever it is attached (attach takes it to another resource). */
  findOwned(userId: number, id: number): Promise<PaymentCustomerRecord | null> {
    return this.model.findOne({ _id: id, user_id: userId }).lean<PaymentCustomerRecord>().exec();
  }

  async delete(userId: number, id: number): Promise<void> {
    await this.model.deleteOne({ _id: id, user_id: userId }).exec();
  }

  /** Makes the customer visible in one more resource (idempotent). */
  async attach(id: number, resourceId: number): Promise<void> {
    await this.model.updateOne({ _id: id }, { $addToSet: { resource_ids: resourceId } }).exec();
  }
}
