import { Schema, type Connection, type Model } from 'mongoose';

/**
 * A language of the Language record (document 2): the package owns `slug`, `title` and
 * `description`; `active`, `is_default` and `sort` are set once at seeding and are the
 * operator's afterwards.
 */
export interface LanguageRecord {
  /** Derived from the ISO 639-1 code (languageIdOf). */
  _id: number;
  slug: string;
  title: string;
  description: string | null;
  is_default: boolean;
  active: boolean;
  sort: number;
  created_at: Date;
  updated_at: Date;
}

const languageSchema = new Schema<LanguageRecord>(
  {
    _id: { type: Number, required: true },
    slug: { type: String, required: true },
    title: { type: String, required: true },
    description: { type: String, default: null },
    is_default: { type: Boolean, required: true, default: false },
    active: { type: Boolean, required: true, default: false },
    sort: { type: Number, required: true, default: 0 },
    created_at: { type: Date, required: true },
    updated_at: { type: Date, required: true },
  },
  { collection: 'languages', versionKey: false },
);
// Serves nothing but uniqueness: the list (183 rows) is read by _id or scanned.
languageSchema.index({ slug: 1 }, { unique: true });

export const languageModel = (db: Connection): Model<LanguageRecord> =>
  db.models['Language'] ?? db.model<LanguageRecord>('Language', languageSchema);
