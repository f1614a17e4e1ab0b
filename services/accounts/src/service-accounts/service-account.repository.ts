import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection } from 'mongoose';
import {
  serviceAccountModels,
  type ServiceAccountModels,
  type ServiceAccountRecord,
  type ServiceAccountState,
} from './service-account.schema.js';

export type NewServiceAccount = Omit<
  ServiceAccountRecord,
  '_id' | 'created_at' | 'updated_at' | 'request_count' | 'last_used_at' | 'revoked_at'
>;

/** One batch entry of usage: requests since the last report and the latest request time. */
export interface UsageIncrement {
  serviceAccountId: number;
  requests: number;
  lastUsedAt: Date;
}

/** Storage of service accounts and their key lookup rows; returns plain objects. */
export class ServiceAccountRepository {
  private readonly models: ServiceAccountModels;

  constructor(private readonly db: Connection) {
    this.models = serviceAccountModels(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.models.accounts.createIndexes(), this.models.keys.createIndexes()]);
  }

  findById(id: number): Promise<ServiceAccountRecord | null> {
    return this.models.accounts.findById(id).lean<ServiceAccountRecord>().exec();
  }

  /** The account holding a key hash; `_id` equality on the lookup row, then on the account. */
  async findByKeyHash(hash: string): Promise<ServiceAccountRecord | null> {
    const key = await this.models.keys.findById(hash).lean().exec();
    return key ? this.findById(key.service_account_id) : null;
  }

  listForResource(resourceId: number): Promise<ServiceAccountRecord[]> {
    return this.models.accounts.find({ resource_id: resourceId }).sort({ _id: 1 }).lean<ServiceAccountRecord[]>().exec();
  }

  /**
   * Inserts the account, then its key row. Should the second insert fail, the account exists
   * with a key that resolves to nothing: it is listed, never usable, and can be revoked.
   */
  async insert(account: NewServiceAccount): Promise<ServiceAccountRecord> {
    const now = new Date();
    const saved = await insertWithNextId(this.db, this.models.accounts, {
      ...account,
      request_count: 0,
      last_used_at: null,
      revoked_at: null,
      created_at: now,
      updated_at: now,
    });
    await this.models.keys.create({ _id: account.key_hash, service_account_id: saved._id, created_at: now });
    return saved;
  }

  /** Sets revoked_at unless already set; null when the account is unknown or already revoked. */
  revoke(id: number): Promise<ServiceAccountRecord | null> {
    const now = new Date();
    return this.models.accounts
      .findOneAndUpdate({ _id: id, revoked_at: null }, { $set: { revoked_at: now, updated_at: now } }, { new: true })
      .lean<ServiceAccountRecord>()
      .exec();
  }

  /** Changes the status of an account that is not revoked; null otherwise. */
  setStatus(id: number, status: ServiceAccountState): Promise<ServiceAccountRecord | null> {
    return this.models.accounts
      .findOneAndUpdate({ _id: id, revoked_at: null }, { $set: { status, updated_at: new Date() } }, { new: true })
      .lean<ServiceAccountRecord>()
      .exec();
  }

  /**
   * Adds a batch of usage. `$inc` and `$max` are single-document updates: exact on MongoDB; on
   * FerretDB 1.x (read-then-write, issue 3040) two gateways reporting for one account in the same
   * instant can lose one report's count, acceptable for a usage counter (ADR 0020).
   */
  async addUsage(increments: UsageIncrement[]): Promise<void> {
    await Promise.all(
      increments.map(({ serviceAccountId, requests, lastUsedAt }) =>
        this.models.accounts
          .updateOne({ _id: serviceAccountId }, { $inc: { request_count: requests }, $max: { last_used_at: lastUsedAt } })
          .exec(),
      ),
    );
  }
}
