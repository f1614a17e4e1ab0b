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
 * hint (a count read before): the scan starts there, and under a cap wraps around to the slots
 * below it, where a claim released after a failure leaves a hole that would otherwise stay empty.
 * A count already at the cap means full (no probing). Returns the slot, or null when every slot
 * below `limit` is taken (limit 0 = no cap).
 */
export async function claimSlot(insert: (slot: number) => Promise<unknown>, from: number, limit: number): Promise<number | null> {
  const start = Math.max(0, from);
  if (limit > 0 && start >= limit) return null;
  for (let slot = start; limit <= 0 || slot < limit; slot++) {
    if (await insertIfAbsent(insert(slot))) return slot;
  }
  for (let slot = 0; slot < start; slot++) {
    if (await insertIfAbsent(insert(slot))) return slot;
  }
  return null;
}
