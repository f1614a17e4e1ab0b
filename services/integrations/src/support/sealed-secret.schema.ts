import type { SealedSecret } from '@masthead/core/secrets';
import { Schema } from 'mongoose';

/** A value sealed with `@masthead/core/secrets`, embedded in the record it belongs to. */
export const sealedSecretSchema = new Schema<SealedSecret>(
  {
    key_id: { type: String, required: true },
    iv: { type: String, required: true },
    tag: { type: String, required: true },
    ciphertext: { type: String, required: true },
  },
  { _id: false },
);
