import type { Logger } from '@masthead/core/logging';
import { open, seal, SecretUnavailable, type KeyRing, type SealedSecret } from '@masthead/core/secrets';
import type { Model } from 'mongoose';

/**
 * Re-seals, under the ring's current key, every value of `field` still sealed with another key
 * of the ring (rotation, as docs/adr/0120 describes for billing; docs/adr/0171). A concurrent
 * write wins: the update is guarded by the ciphertext read. Values whose key left the ring are
 * logged by key ID and left alone. Answers how many were re-sealed.
 */
export async function resealField<T extends { _id: unknown }>(
  model: Model<T>,
  field: string,
  ring: KeyRing,
  aadOf: (record: T) => string,
  logger: Logger,
): Promise<number> {
  const stale = await model
    .find({ [`${field}.key_id`]: { $exists: true, $ne: ring.current.id } } as never)
    .lean<T[]>()
    .exec();
  let count = 0;
  for (const record of stale) {
    const sealed = (record as Record<string, unknown>)[field] as SealedSecret;
    try {
      const resealed = seal(ring, open(ring, sealed, aadOf(record)), aadOf(record));
      const { modifiedCount } = await model
        .updateOne({ _id: record._id, [`${field}.ciphertext`]: sealed.ciphertext } as never, { $set: { [field]: resealed } } as never)
        .exec();
      count += modifiedCount;
    } catch (error) {
      if (!(error instanceof SecretUnavailable)) throw error;
      logger.error({ collection: model.collection.collectionName, id: record._id, keyId: sealed.key_id }, error.message);
    }
  }
  return count;
}
