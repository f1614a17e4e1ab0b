import { Schema } from 'mongoose';
import type { SealedSecret } from '../secrets/index.js';

/** A sealed secret as a sub-document (`@masthead/core/secrets`): key ID, IV, tag, ciphertext. */
export const sealedSecretSchema = new Schema<SealedSecret>(
  {
    key_id: { type: String, required: true },
    iv: { type: String, required: true },
    tag: { type: String, required: true },
    ciphertext: { type: String, required: true },
  },
  { _id: false },
);
