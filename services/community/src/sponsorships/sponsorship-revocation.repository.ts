import { insertIfAbsent } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';
import type { RevocationReason } from '../support/revocation-command.js';
import { sponsorshipRevocationModel, type SponsorshipRevocationRecord } from './sponsorship-revocation.schema.js';
import type { SponsorshipRecord } from './sponsorship.schema.js';

/** Storage of revoked sponsorship purchase keys (docs/adr/0234); results are plain objects. */
export class SponsorshipRevocationRepository {
  private readonly model: Model<SponsorshipRevocationRecord>;

  constructor(db: Connection) {
    this.model = sponsorshipRevocationModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Records the key as revoked (a repeat keeps the first record). */
  async mark(key: string, resourceId: number, reason: RevocationReason): Promise<void> {
    await insertIfAbsent(this.model.create({ _id: key, resource_id: resourceId, reason, sponsorship: null, created_at: new Date() }));
  }

  find(key: string): Promise<SponsorshipRevocationRecord | null> {
    return this.model.findById(key).lean<SponsorshipRevocationRecord>().exec();
  }

  /** Keeps the sponsorship as it was, before it is deleted. */
  async keep(key: string, sponsorship: SponsorshipRecord): Promise<void> {
    await this.model.updateOne({ _id: key }, { $set: { sponsorship } }).exec();
  }
}
