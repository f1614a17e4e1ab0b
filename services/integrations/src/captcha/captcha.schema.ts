import type { SealedSecret } from '@masthead/core/secrets';
import { Schema, type Connection, type Model } from 'mongoose';
import { sealedSecretSchema } from '@masthead/core/mongo';

/** One resource's captcha settings; `_id` is the resource ID, 0 the global record. */
export interface CaptchaRecord {
  _id: number;
  active: boolean | null;
  public_key: string | null;
  secret_key: SealedSecret | null;
  /** Shown to operators instead of the secret. */
  secret_key_last4: string;
  updated_at: Date;
}

const captchaSchema = new Schema<CaptchaRecord>(
  {
    _id: { type: Number, required: true },
    active: { type: Boolean, default: null },
    public_key: { type: String, default: null },
    secret_key: { type: sealedSecretSchema, default: null },
    secret_key_last4: { type: String, default: '' },
    updated_at: { type: Date, required: true },
  },
  { collection: 'captcha_settings', versionKey: false },
);
// Served by `_id` alone (resource, then 0): no other index.

export const captchaModel = (db: Connection): Model<CaptchaRecord> =>
  db.models['CaptchaSettings'] ?? db.model<CaptchaRecord>('CaptchaSettings', captchaSchema);
