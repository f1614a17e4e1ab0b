import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import {
  defaultSourceModel,
  paymentMethodModel,
  userCardModel,
  type DefaultSourceRecord,
  type PaymentMethodRecord,
  type UserCardRecord,
} from './source.schema.js';

export type NewPaymentMethod = Omit<PaymentMethodRecord, '_id' | 'created_at'>;
export type NewUserCard = Omit<UserCardRecord, '_id' | 'created_at'>;
export type SourceType = DefaultSourceRecord['source_type'];

const defaultId = (userId: number, paySystem: string) => `${userId}:${paySystem}`;

/**
 * Storage of saved methods, cards and the default pointer. Reads name the member and the
 * customers visible to them in the resource (the tenant scope of billing's member data).
 */
export class SourceRepository {
  private readonly methods: Model<PaymentMethodRecord>;
  private readonly cards: Model<UserCardRecord>;
  private readonly defaults: Model<DefaultSourceRecord>;

  constructor(private readonly db: Connection) {
    this.methods = paymentMethodModel(db);
    this.cards = userCardModel(db);
    this.defaults = defaultSourceModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.methods.createIndexes(), this.cards.createIndexes(), this.defaults.createIndexes()]);
  }

  listMethods(userId: number, customerIds: number[]): Promise<PaymentMethodRecord[]> {
    if (customerIds.length === 0) return Promise.resolve([]);
    return this.methods
      .find({ user_id: userId, payment_customer_id: { $in: customerIds } })
      .lean<PaymentMethodRecord[]>()
      .exec();
  }

  listCards(userId: number, customerIds: number[]): Promise<UserCardRecord[]> {
    if (customerIds.length === 0) return Promise.resolve([]);
    return this.cards
      .find({ user_id: userId, payment_customer_id: { $in: customerIds } })
      .lean<UserCardRecord[]>()
      .exec();
  }

  findMethod(userId: number, customerIds: number[], id: number): Promise<PaymentMethodRecord | null> {
    return this.methods
      .findOne({ _id: id, user_id: userId, payment_customer_id: { $in: customerIds } })
      .lean<PaymentMethodRecord>()
      .exec();
  }

  findCard(userId: number, customerIds: number[], id: number): Promise<UserCardRecord | null> {
    return this.cards
      .findOne({ _id: id, user_id: userId, payment_customer_id: { $in: customerIds } })
      .lean<UserCardRecord>()
      .exec();
  }

  /** Inserts, or returns the record of the same key a retry or concurrent save inserted. */
  insertMethodOnce(method: NewPaymentMethod): Promise<PaymentMethodRecord> {
    return this.insertOnce(this.methods, method, { method_key: method.method_key });
  }

  insertCardOnce(card: NewUserCard): Promise<UserCardRecord> {
    return this.insertOnce(this.cards, card, { card_key: card.card_key });
  }

  async deleteMethod(id: number): Promise<void> {
    await this.methods.deleteOne({ _id: id }).exec();
  }

  async deleteCard(id: number): Promise<void> {
    await this.cards.deleteOne({ _id: id }).exec();
  }

  /** Deletes a customer's methods and cards (its local record goes; the provider's stays). */
  async deleteOfCustomer(userId: number, customerId: number): Promise<void> {
    await Promise.all([
      this.methods.deleteMany({ user_id: userId, payment_customer_id: customerId }).exec(),
      this.cards.deleteMany({ user_id: userId, payment_customer_id: customerId }).exec(),
    ]);
  }

  findDefault(userId: number, paySystem: string): Promise<DefaultSourceRecord | null> {
    return this.defaults.findById(defaultId(userId, paySystem)).lean<DefaultSourceRecord>().exec();
  }

  /**
   * Points the member's default with the provider at one source. One document per (member,
   * provider): concurrent selections overwrite each other and exactly one wins. Two first-ever
   * upserts can race and one fail on the `_id` (MongoDB documents this; FerretDB does it too):
   * the document exists then, and the retry updates it.
   */
  async setDefault(userId: number, paySystem: string, sourceType: SourceType, sourceId: number): Promise<void> {
    const update = { $set: { source_type: sourceType, source_id: sourceId, updated_at: new Date() } };
    for (let attempt = 0; ; attempt++) {
      try {
        await this.defaults.updateOne({ _id: defaultId(userId, paySystem) }, update, { upsert: true }).exec();
        return;
      } catch (error) {
        if (!isDuplicateKey(error) || attempt >= 3) throw error;
      }
    }
  }

  /** Clears the default if it still points at this source. */
  async clearDefaultIf(userId: number, paySystem: string, sourceType: SourceType, sourceId: number): Promise<void> {
    await this.defaults.deleteOne({ _id: defaultId(userId, paySystem), source_type: sourceType, source_id: sourceId }).exec();
  }

  async clearDefault(userId: number, paySystem: string): Promise<void> {
    await this.defaults.deleteOne({ _id: defaultId(userId, paySystem) }).exec();
  }

  private async insertOnce<T extends { _id: number }>(
    model: Model<T>,
    row: Omit<T, '_id' | 'created_at'>,
    key: Record<string, string>,
  ): Promise<T> {
    try {
      return await insertWithNextId(this.db, model, { ...row, created_at: new Date() } as unknown as Omit<T, '_id'>);
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
      const existing = await model.findOne(key).lean<T>().exec();
      if (!existing) throw error;
      return existing;
    }
  }
}
