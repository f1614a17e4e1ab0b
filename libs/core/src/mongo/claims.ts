import type { Model } from 'mongoose';
import { isDuplicateKey } from './ids.js';

/*
 * Unique claims (ADR 0002): a count or an election under concurrency is an insert under a unique
 * key, never read-then-write or `$inc` (FerretDB loses concurrent `$inc` updates).
 */

/** True when the insert went in, false when its key was taken already; any other error throws. */
export async function insertIfAbsent(insert: Promise<unknown>): Promise<boolean> {
  try {
    await insert;
    return true;
  } catch (error) {
    if (isDuplicateKey(error)) return false;
    throw error;
  }
}

/**
 * Claims a free slot number by inserting a document whose unique key holds the slot. `from` is a
 * hint (a count read before): a count already at the cap means full (no probing). Under a cap the
 * scan starts at a random slot between the hint and the cap, so that a rush of parallel claims,
 * which all read the same count, spreads over the free slots instead of all probing the same one
 * in turn; it then wraps around to the slots below, where a claim released after a failure leaves
 * a hole. Without a cap it scans upward from the hint. Returns the slot, or null when every slot
 * below `limit` is taken (limit 0 = no cap).
 */
export async function claimSlot(insert: (slot: number) => Promise<unknown>, from: number, limit: number): Promise<number | null> {
  const hint = Math.max(0, from);
  if (limit <= 0) {
    for (let slot = hint; ; slot++) if (await insertIfAbsent(insert(slot))) return slot;
  }
  if (hint >= limit) return null;
  const start = hint + Math.floor(Math.random() * (limit - hint));
  for (let offset = 0; offset < limit; offset++) {
    const slot = (start + offset) % limit;
    if (await insertIfAbsent(insert(slot))) return slot;
  }
  return null;
}

/**
 * An ending decided once (ADR 0002): inserts `record` under its key unless one is there, and
 * answers the `field` that stands — this call's, or the first writer's — and whether this call
 * wrote it (and so is the one to act on it: announce, give back, mark).
 */
export async function settleOnce<T extends { _id: string }, F extends keyof T>(
  model: Model<T>,
  record: T,
  field: F,
): Promise<{ value: T[F]; won: boolean }> {
  if (await insertIfAbsent(model.create(record))) return { value: record[field], won: true };
  const standing = await model.findById(record._id).lean<T>().exec();
  if (!standing) throw new Error(`the ending of ${record._id} vanished`);
  return { value: standing[field], won: false };
}
