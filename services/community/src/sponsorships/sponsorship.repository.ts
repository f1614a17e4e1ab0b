import { insertWithNextId } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import { sponsorshipModel, type SponsorshipRecord } from './sponsorship.schema.js';

export type NewSponsorship = Omit<SponsorshipRecord, '_id' | 'created_at' | 'updated_at'>;
export type SponsorshipChanges = Partial<Pick<SponsorshipRecord, 'title' | 'description' | 'is_paying_by_sponsor' | 'autorenew'>>;

/** Storage of sponsorships. Every read names the resource; results are plain objects. */
export class SponsorshipRepository {
  private readonly model: Model<SponsorshipRecord>;

  constructor(private readonly db: Connection) {
    this.model = sponsorshipModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  find(resourceId: number, id: number): Promise<SponsorshipRecord | null> {
    return this.model.findOne({ _id: id, resource_id: resourceId }).lean<SponsorshipRecord>().exec();
  }

  findByPurchase(purchaseKey: string): Promise<SponsorshipRecord | null> {
    return this.model.findOne({ purchase_key: purchaseKey }).lean<SponsorshipRecord>().exec();
  }

  /** The sponsor's sponsorships in the resource, newest first. */
  listForSponsor(resourceId: number, sponsorId: number): Promise<SponsorshipRecord[]> {
    return this.model
      .find({ resource_id: resourceId, sponsor_id: sponsorId })
      .sort({ created_at: -1, _id: -1 })
      .lean<SponsorshipRecord[]>()
      .exec();
  }

  findMany(resourceId: number, ids: number[]): Promise<SponsorshipRecord[]> {
    if (ids.length === 0) return Promise.resolve([]);
    return this.model
      .find({ resource_id: resourceId, _id: { $in: ids } })
      .lean<SponsorshipRecord[]>()
      .exec();
  }

  insert(sponsorship: NewSponsorship): Promise<SponsorshipRecord> {
    const now = new Date();
    return insertWithNextId(this.db, this.model, { ...sponsorship, created_at: now, updated_at: now });
  }

  /** The sponsorship was revoked (docs/adr/0234); it is kept in sponsorship_revocations. */
  async delete(resourceId: number, id: number): Promise<void> {
    await this.model.deleteOne({ _id: id, resource_id: resourceId }).exec();
  }

  update(id: number, changes: SponsorshipChanges): Promise<SponsorshipRecord | null> {
    return this.model
      .findByIdAndUpdate(id, { $set: { ...changes, updated_at: new Date() } }, { new: true })
      .lean<SponsorshipRecord>()
      .exec();
  }
}
