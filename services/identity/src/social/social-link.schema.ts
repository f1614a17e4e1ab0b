import { Schema, type Connection, type Model } from 'mongoose';

/** A provider identity linked to a user. Global: it signs the user in through any resource. */
export interface SocialLinkRecord {
  /** `<provider>:<sub>`: the natural key, so that one identity belongs to one user at most. */
  _id: string;
  provider: string;
  sub: string;
  user_id: number;
  /** The token's `email` claim at linking time, for the member's own reference. */
  email: string | null;
  created_at: Date;
}

const socialLinkSchema = new Schema<SocialLinkRecord>(
  {
    _id: { type: String, required: true },
    provider: { type: String, required: true },
    sub: { type: String, required: true },
    user_id: { type: Number, required: true },
    email: { type: String, default: null },
    created_at: { type: Date, required: true },
  },
  { collection: 'social_links', versionKey: false },
);
// Serves the user's links (listing, replacing and unlinking by provider).
socialLinkSchema.index({ user_id: 1, provider: 1 });

/** Provider names never hold a colon (provider-config.ts), so the key splits unambiguously. */
export const socialLinkKey = (provider: string, sub: string): string => `${provider}:${sub}`;

export const socialLinkModel = (db: Connection): Model<SocialLinkRecord> =>
  db.models['SocialLink'] ?? db.model<SocialLinkRecord>('SocialLink', socialLinkSchema);
