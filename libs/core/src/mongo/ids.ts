import type { Connection, Model } from 'mongoose';

/** Counters collection: one document per entity collection, `{_id: name, seq: last issued}`. */
const COUNTERS = 'counters';
const MAX_ATTEMPTS = 20;

/** A duplicate key on `_id` only; a clash on another unique index is the caller's conflict. */
function isDuplicateId(error: unknown): boolean {
  const { code, keyPattern, message } = (error ?? {}) as { code?: number; keyPattern?: object; message?: string };
  if (code !== 11000) return false;
  if (keyPattern) return Object.keys(keyPattern).join(',') === '_id';
  return /index: _id_ /.test(message ?? '');
}

/**
 * Integer public IDs (DESIGN.md "IDs"). The counter's `$inc` proposes the next ID; the insert of
 * the entity with that ID as its `_id` is what claims it. On MongoDB the `$inc` alone is atomic;
 * FerretDB 1.x applies it read-then-write (FerretDB issue 3040), so two callers can be handed the
 * same number. The unique `_id` makes the second insert fail with a duplicate key, and that caller
 * asks again. IDs stay distinct on both servers; they are increasing but not gap-free.
 */
export async function insertWithNextId<T extends { _id: number }>(
  connection: Connection,
  model: Model<T>,
  document: Omit<T, '_id'>,
): Promise<T> {
  const counters = connection.collection<{ _id: string; seq: number }>(COUNTERS);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const counter = await counters.findOneAndUpdate(
      { _id: model.collection.collectionName },
      { $inc: { seq: 1 } },
      { upsert: true, returnDocument: 'after' },
    );
    const id = counter?.seq;
    if (typeof id !== 'number') throw new Error('counter update returned no sequence');
    try {
      const created = await model.create({ ...document, _id: id });
      return created.toObject() as T;
    } catch (error) {
      if (!isDuplicateId(error)) throw error;
      // Either a lost counter update (FerretDB) or a row written with an explicit ID: move on.
      await counters.updateOne({ _id: model.collection.collectionName }, { $max: { seq: id } });
    }
  }
  throw new Error(`could not allocate an ID in ${model.collection.collectionName}`);
}
