import type { Model } from 'mongoose';

const DUPLICATE_KEY = 11000;

interface BulkWriteFailure {
  code?: unknown;
  writeErrors?: Array<{ code?: unknown; err?: { code?: unknown } }>;
}

const isOnlyDuplicates = (error: unknown): boolean => {
  const failure = error as BulkWriteFailure | null;
  if (!failure || typeof failure !== 'object') return false;
  const writeErrors = failure.writeErrors ?? [];
  if (writeErrors.length === 0) return failure.code === DUPLICATE_KEY;
  return writeErrors.every((item) => (item.code ?? item.err?.code) === DUPLICATE_KEY);
};

/**
 * Inserts reference rows with fixed IDs; rows whose `_id` exists already (another replica
 * seeding at the same time, or an earlier boot) are skipped, everything else is inserted.
 */
export async function insertIgnoringDuplicates<T>(model: Model<T>, rows: object[]): Promise<void> {
  if (rows.length === 0) return;
  try {
    await model.insertMany(rows, { ordered: false, lean: true });
  } catch (error) {
    if (!isOnlyDuplicates(error)) throw error;
  }
}
