import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { accountRequestModel, type AccountRequestRecord } from './account-request.schema.js';

export type NewAccountRequest = Omit<
  AccountRequestRecord,
  '_id' | 'created_at' | 'updated_at' | 'cardprovider_customer_id' | 'cardprovider_charge_id'
>;

/**
 * Storage of account requests. They belong to the fixed deployment resource, not to a tenant, so
 * reads are by ID (document 2, J: no owner check). Plain objects.
 */
export class AccountRequestRepository {
  private readonly model: Model<AccountRequestRecord>;

  constructor(private readonly db: Connection) {
    this.model = accountRequestModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  insert(request: NewAccountRequest): Promise<AccountRequestRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, {
      ...request,
      cardprovider_customer_id: null,
      cardprovider_charge_id: null,
      created_at: now,
      updated_at: now,
    });
  }

  find(id: number): Promise<AccountRequestRecord | null> {
    return this.model.findById(id).lean<AccountRequestRecord>().exec();
  }

  update(
    id: number,
    changes: Partial<Pick<AccountRequestRecord, 'cardprovider_token' | 'cardprovider_customer_id' | 'cardprovider_charge_id'>>,
  ) {
    return this.model
      .findByIdAndUpdate(id, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<AccountRequestRecord>()
      .exec();
  }
}
