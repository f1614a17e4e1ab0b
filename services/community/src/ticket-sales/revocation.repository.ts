import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { PassRecord } from '../passes/pass.schema.js';
import type { RevocationReason } from '../support/revocation-command.js';
import {
  passRevocationModel,
  purchaseRevocationModel,
  type PassRevocationRecord,
  type PurchaseRevocationRecord,
} from './revocation.schema.js';

/** Storage of revoked purchase keys and revoked passes (docs/adr/0234); results are plain objects. */
export class RevocationRepository {
  private readonly purchases: Model<PurchaseRevocationRecord>;
  private readonly passes: Model<PassRevocationRecord>;

  constructor(db: Connection) {
    this.purchases = purchaseRevocationModel(db);
    this.passes = passRevocationModel(db);
  }

  async ready(): Promise<void> {
    await Promise.all([this.purchases.createIndexes(), this.passes.createIndexes()]);
  }

  /** Records the purchase key as revoked (a repeat keeps the first record). */
  async markPurchase(key: string, resourceId: number, reason: RevocationReason): Promise<void> {
    await insertIfAbsent(this.purchases.create({ _id: key, resource_id: resourceId, reason, created_at: new Date() }));
  }

  /** Why the purchase key was revoked; null while it is not. */
  async reasonOf(key: string): Promise<RevocationReason | null> {
    return (await this.purchases.findById(key).lean<PurchaseRevocationRecord>().exec())?.reason ?? null;
  }

  /** Keeps the pass as it was; true for the one call that recorded it (it announces the revocation). */
  archivePass(pass: PassRecord, reason: RevocationReason): Promise<boolean> {
    return insertIfAbsent(
      this.passes.create({
        _id: pass._id,
        resource_id: pass.resource_id,
        purchase_key: pass.purchase_key,
        reason,
        pass,
        created_at: new Date(),
      }),
    );
  }
}
