import { randomUUID } from 'node:crypto';
import type { Connection, Model } from 'mongoose';
import { insertIfAbsent } from '@masthead/core/mongo';
import { membershipClaimModel, type MembershipClaimRecord } from './claim.schema.js';

/** The claim of (resource, user, pricing); whoever detaches that membership deletes it. */
export const claimKey = (resourceId: number, userId: number, pricingId: number): string => `${resourceId}:${userId}:${pricingId}`;

/** Marker whose unique insert elects the single caller that may replace a stale claim. */
const takeoverKey = (stale: MembershipClaimRecord) => `${stale._id}~${stale.token}`;

/** Storage of membership_claims; see claim.schema.ts for why claims exist. */
export class MembershipClaimRepository {
  private readonly model: Model<MembershipClaimRecord>;

  constructor(db: Connection) {
    this.model = membershipClaimModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Inserts the claim; null when someone else holds it already. */
  async tryAcquire(key: string): Promise<MembershipClaimRecord | null> {
    const claim: MembershipClaimRecord = { _id: key, token: randomUUID(), membership_id: null, created_at: new Date() };
    return (await insertIfAbsent(this.model.create(claim))) ? claim : null;
  }

  find(key: string): Promise<MembershipClaimRecord | null> {
    return this.model.findById(key).lean<MembershipClaimRecord>().exec();
  }

  /**
   * Replaces a claim whose holder is presumed dead. Several callers may see the same stale
   * claim; the unique takeover marker lets exactly one of them delete and re-acquire it, so the
   * delete cannot remove a claim someone else just acquired. Null when another caller won.
   */
  async takeOver(stale: MembershipClaimRecord): Promise<MembershipClaimRecord | null> {
    const marker: MembershipClaimRecord = { _id: takeoverKey(stale), token: stale.token, membership_id: null, created_at: new Date() };
    if (!(await insertIfAbsent(this.model.create(marker)))) return null;
    await this.model.deleteOne({ _id: stale._id, token: stale.token });
    return this.tryAcquire(stale._id);
  }

  async recordMembership(claim: MembershipClaimRecord, membershipId: number): Promise<void> {
    await this.model.updateOne({ _id: claim._id, token: claim.token }, { $set: { membership_id: membershipId } });
  }

  /** Gives the claim up, e.g. when creating the membership failed or it was detached. */
  async release(claim: Pick<MembershipClaimRecord, '_id' | 'token'>): Promise<void> {
    await this.model.deleteOne({ _id: claim._id, token: claim.token });
  }
}
