import { sealedSecretSchema } from '@masthead/core/mongo';
import type { SealedSecret } from '@masthead/core/secrets';
import { Schema, type Connection, type Model } from 'mongoose';

/** The public half of an Ed25519 key as a JWK (RFC 8037). */
export interface PublicJwk {
  kty: 'OKP';
  crv: 'Ed25519';
  x: string;
}

/**
 * One entitlement signing key (docs/adr/0247). `_id` is the key's `kid` (its RFC 7638
 * thumbprint); `generation` orders keys and, unique, lets exactly one of two racing rotations (or
 * first starts) store the next key. The private key is sealed with IDENTITY_SECRETS_KEYS, bound to
 * the `kid`. When a key retires is not stored: it follows from its successor's `signs_from`.
 */
export interface SigningKeyRecord {
  _id: string;
  generation: number;
  alg: 'EdDSA';
  public_jwk: PublicJwk;
  /** PKCS #8 PEM of the private key, sealed. */
  private_key: SealedSecret;
  created_at: Date;
  /** Published from `created_at`; signs from here until its successor's `signs_from`. */
  signs_from: Date;
}

const signingKeySchema = new Schema<SigningKeyRecord>(
  {
    _id: { type: String, required: true },
    generation: { type: Number, required: true },
    alg: { type: String, required: true },
    public_jwk: {
      type: new Schema<PublicJwk>({ kty: String, crv: String, x: String }, { _id: false }),
      required: true,
    },
    private_key: { type: sealedSecretSchema, required: true },
    created_at: { type: Date, required: true },
    signs_from: { type: Date, required: true },
  },
  { collection: 'signing_keys', versionKey: false },
);
// The claim of a generation: a second insert of the same one fails (FerretDB-safe, DESIGN.md).
signingKeySchema.index({ generation: 1 }, { unique: true });

export const signingKeyModel = (db: Connection): Model<SigningKeyRecord> =>
  db.models['SigningKey'] ?? db.model<SigningKeyRecord>('SigningKey', signingKeySchema);
