import { insertWithNextId, isDuplicateKey } from '@masthead/core/mongo';
import type { Connection, Model } from 'mongoose';

/**
 * An operator's create-or-update by a natural key held unique by an index (an event's title in
 * its resource, a ticket's in its event). A parallel create of the same key loses on the index
 * and updates the row that won, so the key never holds two rows.
 */
export async function upsertByKey<T extends { _id: number; created_at: Date; updated_at: Date }>(
  db: Connection,
  model: Model<T>,
  key: Partial<T>,
  fields: Omit<T, '_id' | 'created_at' | 'updated_at'>,
): Promise<T> {
  const update = () =>
    model
      .findOneAndUpdate(key, { $set: { ...fields, updated_at: new Date() } }, { new: true })
      .lean<T>()
      .exec();
  const existing = await update();
  if (existing) return existing;
  const now = new Date();
  try {
    return await insertWithNextId(db, model, { ...fields, created_at: now, updated_at: now } as unknown as Omit<T, '_id'>);
  } catch (error) {
    if (!isDuplicateKey(error)) throw error;
    const won = await update();
    if (!won) throw error;
    return won;
  }
}
