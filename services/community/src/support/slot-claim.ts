import { isDuplicateKey } from '@masthead/core/mongo';

/**
 * Claims the lowest free slot number from `from` upward by inserting a document whose unique key
 * holds the slot (ADR 0002: a unique claim, not read-then-write or `$inc`). `from` is only a
 * hint (a count read before): a taken slot answers with a duplicate key and the next is tried.
 * Returns the slot, or null when every slot below `limit` is taken (limit 0 = no cap).
 */
export async function claimSlot(insert: (slot: number) => Promise<void>, from: number, limit: number): Promise<number | null> {
  for (let slot = Math.max(0, from); limit <= 0 || slot < limit; slot++) {
    try {
      await insert(slot);
      return slot;
    } catch (error) {
      if (!isDuplicateKey(error)) throw error;
    }
  }
  return null;
}
