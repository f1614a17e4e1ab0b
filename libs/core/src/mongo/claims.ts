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
 * Claims the lowest free slot number from `from` upward by inserting a document whose unique key
 * holds the slot. `from` is only a hint (a count read before): a taken slot answers with a
 * duplicate key and the next is tried. Returns the slot, or null when every slot below `limit`
 * is taken (limit 0 = no cap).
 */
export async function claimSlot(insert: (slot: number) => Promise<unknown>, from: number, limit: number): Promise<number | null> {
  for (let slot = Math.max(0, from); limit <= 0 || slot < limit; slot++) {
    if (await insertIfAbsent(insert(slot))) return slot;
  }
  return null;
}
