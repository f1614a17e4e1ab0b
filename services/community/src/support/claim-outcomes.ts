import { settleOnce } from '@masthead/core/mongo';
import { Schema, type Connection, type Model } from 'mongoose';

/** How a claim whose grant was pending ended: its membership granted, or the claim given back. */
export type ClaimOutcome = 'granted' | 'released';

interface ClaimOutcomeRecord {
  /** `<kind>:<claim>`: an invitation activation's ID, a slot activation's claim. */
  _id: string;
  outcome: ClaimOutcome;
  created_at: Date;
}

const claimOutcomeSchema = new Schema<ClaimOutcomeRecord>(
  {
    _id: { type: String, required: true },
    outcome: { type: String, required: true },
    created_at: { type: Date, required: true },
  },
  { collection: 'claim_outcomes', versionKey: false },
);

const claimOutcomeModel = (db: Connection): Model<ClaimOutcomeRecord> =>
  db.models['ClaimOutcome'] ?? db.model<ClaimOutcomeRecord>('ClaimOutcome', claimOutcomeSchema);

/**
 * The one ending of a claim whose grant was pending (docs/adr/0233): a unique insert, so a member's
 * retry, the pending-grant pass and a release for good agree on one, and only its writer records
 * it (marks the claim granted and announces it, or deletes the claims).
 */
export class ClaimOutcomes {
  private readonly model: Model<ClaimOutcomeRecord>;

  constructor(db: Connection) {
    this.model = claimOutcomeModel(db);
  }

  async ready(): Promise<void> {
    await this.model.createIndexes();
  }

  /** Records the ending unless one exists; answers the ending that stands and whether this call wrote it. */
  async settle(key: string, outcome: ClaimOutcome): Promise<{ outcome: ClaimOutcome; won: boolean }> {
    const { value, won } = await settleOnce(this.model, { _id: key, outcome, created_at: new Date() }, 'outcome');
    return { outcome: value, won };
  }
}
